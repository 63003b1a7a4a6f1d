// Realtime events over Socket.IO (the server's /socket.io, authenticated by the session cookie):
// `on(event, handler)` / `off`, and rooms for a document (`doc_update`) or a doctype's lists
// (`list_update`), counted so several views can share one; they are joined again after a
// reconnect. socket.io-client reconnects by itself (with backoff) when the connection drops; a
// connection that comes back emits "reconnect" (views reload what they may have missed meanwhile).
import { boot } from "./boot.js";
import { Emitter } from "./lib/emitter.js";

const events = new Emitter();
const rooms = new Map(); // "doc\0dt\0name" or "doctype\0dt" → count
let socket = null;
let lost = false;

function join(key) {
	if (!socket || !socket.connected) return;
	const [kind, doctype, name] = key.split("\0");
	if (kind === "doc") socket.emit("doc_subscribe", doctype, name);
	else socket.emit("doctype_subscribe", doctype);
}

function leave(key) {
	if (!socket || !socket.connected) return;
	const [kind, doctype, name] = key.split("\0");
	if (kind === "doc") socket.emit("doc_unsubscribe", doctype, name);
	else socket.emit("doctype_unsubscribe", doctype);
}

function room(key) {
	rooms.set(key, (rooms.get(key) || 0) + 1);
	if (rooms.get(key) === 1) join(key);
	return () => {
		const left = (rooms.get(key) || 1) - 1;
		if (left <= 0) {
			rooms.delete(key);
			leave(key);
		} else {
			rooms.set(key, left);
		}
	};
}

/** Hear `event` (`doc_update`, `list_update`, `msgprint`, `progress`, or an app's own). */
export function on(event, handler) {
	return events.on(event, handler);
}

export function off(event, handler) {
	events.off(event, handler);
}

/** Hear the changes of one document; returns the function that stops. */
export function watchDoc(doctype, name) {
	return room(`doc\0${doctype}\0${name}`);
}

/** Hear the list changes of a doctype; returns the function that stops. */
export function watchDoctype(doctype) {
	return room(`doctype\0${doctype}`);
}

export function isConnected() {
	return Boolean(socket && socket.connected);
}

/** The Socket.IO socket, or null before `startRealtime` (for diagnostics and tests). */
export function connection() {
	return socket;
}

/** Connect (once). The library is loaded on demand, so the first page does not wait for it. */
export async function startRealtime() {
	if (socket || !boot.realtime) return;
	const { io } = await import("../vendor/socket.io.js");
	socket = io({ path: boot.realtime.path || "/socket.io", withCredentials: true, reconnectionDelayMax: 10000 });
	socket.on("connect", () => {
		for (const key of rooms.keys()) join(key);
		events.emit("connect");
		if (lost) events.emit("reconnect");
		lost = false;
	});
	socket.on("disconnect", (reason) => {
		lost = true;
		events.emit("disconnect", reason);
	});
	socket.onAny((event, ...args) => events.emit(event, ...args));
}
