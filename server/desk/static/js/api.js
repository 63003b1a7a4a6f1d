// The Desk's HTTP client. Every request goes through `request()`:
// - unsafe methods carry the session's CSRF token (`X-Frappe-CSRF-Token`);
// - messages the server sends with a success (`_server_messages`, v2 `messages`) are emitted as
//   "messages" (ui/messages.js shows them: msgprint as a dialog, alerts as toasts);
// - a failure throws an `ApiError` naming the status, type, message and the fields the server
//   named (`errors[].field`), so a form shows the message at its field;
// - a 401/403 checks whether the session is still alive; if not, "session-expired" is emitted
//   (main.js sends the user to /login?redirect-to=<here> and back after logging in).
import { boot } from "./boot.js";
import { __ } from "./i18n.js";
import { Emitter } from "./lib/emitter.js";

export const apiEvents = new Emitter();
const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export class ApiError extends Error {
	constructor({ status = 0, type = "Error", title = "", message = "", fields = {}, messages = [], body = null }) {
		super(message || type);
		this.name = "ApiError";
		this.status = status;
		this.type = type;
		this.title = title;
		this.fields = fields; // {fieldname: message}
		this.messages = messages; // msgprints the request made before it failed
		this.body = body;
	}
}

/** `_server_messages` (a JSON list of JSON-encoded message objects) as a list of objects. */
export function parseServerMessages(raw) {
	if (!raw) return [];
	let list = raw;
	try {
		if (typeof list === "string") list = JSON.parse(list);
	} catch {
		return [{ message: String(raw) }];
	}
	if (!Array.isArray(list)) return [];
	return list.map((item) => {
		if (typeof item !== "string") return item && typeof item === "object" ? item : { message: String(item) };
		try {
			const parsed = JSON.parse(item);
			return parsed && typeof parsed === "object" ? parsed : { message: String(parsed) };
		} catch {
			return { message: item };
		}
	});
}

/** The messages of a response body (v1 `_server_messages` or v2 `messages`), errors left out. */
export function bodyMessages(body) {
	if (!body || typeof body !== "object") return [];
	const list = [...parseServerMessages(body._server_messages), ...(Array.isArray(body.messages) ? body.messages : [])];
	return list.filter((m) => m && !m.raise_exception);
}

/** An ApiError from a failed response's status and body (v1 or v2 shape). */
export function errorFrom(status, body) {
	const data = body && typeof body === "object" ? body : {};
	const entries = Array.isArray(data.errors) ? data.errors.filter((e) => e && typeof e === "object") : [];
	const fields = {};
	for (const entry of entries) {
		if (entry.field && entry.message && !(entry.field in fields)) fields[entry.field] = String(entry.message);
	}
	const first = entries[0] || {};
	const raised = parseServerMessages(data._server_messages).find((m) => m && m.raise_exception);
	const message =
		first.message || data._error_message || (raised && raised.message) || (typeof data.message === "string" ? data.message : "") ||
		(typeof body === "string" && body) || __("The request failed ({0})", [status]);
	return new ApiError({
		status,
		type: first.type || data.exc_type || (status === 404 ? "DoesNotExistError" : "Error"),
		title: first.title || (raised && raised.title) || "",
		message: String(message),
		fields,
		messages: bodyMessages(data),
		body: data,
	});
}

function queryString(query) {
	if (!query) return "";
	const params = new URLSearchParams();
	for (const [key, value] of Object.entries(query)) {
		if (value === undefined || value === null) continue;
		params.append(key, typeof value === "object" ? JSON.stringify(value) : String(value));
	}
	const text = params.toString();
	return text ? `?${text}` : "";
}

let sessionCheck = null;

/** Whether the session of this page is still the one the boot was made for (one check at a time). */
export function sessionAlive() {
	if (!sessionCheck) {
		sessionCheck = fetch("/api/method/fw.auth.get_logged_user", { headers: { Accept: "application/json" } })
			.then(async (response) => response.ok && (await response.json()).message === boot.user)
			.catch(() => true) // the network is down: not a session problem
			.finally(() => setTimeout(() => (sessionCheck = null), 1000));
	}
	return sessionCheck;
}

/** One HTTP request to the server; the parsed JSON body, or an ApiError. */
export async function request(httpMethod, path, { query, body, signal } = {}) {
	const method = httpMethod.toUpperCase();
	const headers = { Accept: "application/json" };
	if (UNSAFE.has(method) && boot.csrf_token) headers["X-Frappe-CSRF-Token"] = boot.csrf_token;
	const init = { method, headers, signal, credentials: "same-origin" };
	if (body !== undefined) {
		headers["Content-Type"] = "application/json";
		init.body = JSON.stringify(body);
	}
	let response;
	try {
		response = await fetch(path + queryString(query), init);
	} catch (error) {
		if (error && error.name === "AbortError") throw error;
		throw new ApiError({
			type: "NetworkError",
			message: __("The server cannot be reached. Check your connection and try again."),
		});
	}
	const text = await response.text();
	let data = null;
	try {
		data = text ? JSON.parse(text) : null;
	} catch {
		data = text;
	}
	if (response.ok) {
		const messages = bodyMessages(data);
		if (messages.length) apiEvents.emit("messages", messages);
		return data;
	}
	const error = errorFrom(response.status, data);
	if ((response.status === 401 || response.status === 403) && !(await sessionAlive())) {
		error.type = "SessionExpired";
		apiEvents.emit("session-expired", error);
	}
	throw error;
}

/** A whitelisted method: `call("fw.client.get_value", {...})` → the response body (`message` in it). */
export function call(method, args = {}, { httpMethod = "POST", signal } = {}) {
	const path = `/api/method/${method}`;
	return httpMethod.toUpperCase() === "GET"
		? request("GET", path, { query: args, signal })
		: request(httpMethod, path, { body: args, signal });
}

const enc = encodeURIComponent;

/** A page of a list (v2): `{data, has_next_page}`. */
export function getList(doctype, { fields, filters, orFilters, orderBy, start = 0, limit = 20, signal } = {}) {
	return request("GET", `/api/v2/document/${enc(doctype)}`, {
		query: { fields, filters, or_filters: orFilters, order_by: orderBy, start, limit },
		signal,
	});
}

/** How many rows of the list the user may read match the filters. */
export async function getCount(doctype, { filters, orFilters, signal } = {}) {
	const body = await request("GET", `/api/v2/doctype/${enc(doctype)}/count`, {
		query: { filters, or_filters: orFilters },
		signal,
	});
	return Number(body && body.data) || 0;
}

/** A document for a form: `{doc, docinfo}` (Frappe's getdoc). */
export async function getDoc(doctype, name, { signal } = {}) {
	const body = await call("fw.desk.form.load.getdoc", { doctype, name }, { httpMethod: "GET", signal });
	return { doc: (body.docs || [])[0], docinfo: body.docinfo || {} };
}

/** Only the fields the server stores (keys starting with "__" are the Desk's own). */
export function wireDoc(doc) {
	const out = {};
	for (const [key, value] of Object.entries(doc)) {
		if (key.startsWith("__")) continue;
		out[key] = Array.isArray(value) ? value.map((row) => (row && typeof row === "object" ? wireDoc(row) : row)) : value;
	}
	return out;
}

/** Insert a new document or save a stored one; the saved document as the server returns it. */
export async function saveDoc(doc) {
	const isNew = Boolean(doc.__islocal);
	const data = wireDoc(doc);
	if (isNew) delete data.name;
	if (isNew && doc.__newname) data.name = String(doc.__newname).trim(); // a name the user typed (autoname Prompt)
	const body = await call(isNew ? "fw.client.insert" : "fw.client.save", { doc: data });
	return body.message;
}

export async function deleteDoc(doctype, name) {
	await request("DELETE", `/api/v2/document/${enc(doctype)}/${enc(name)}`);
}

/** Search a Link's doctype (fw.desk.search.search_link): `[{value, label, description}]`. */
export async function searchLink(doctype, txt, { filters, query, pageLength = 10, signal } = {}) {
	const args = { doctype, txt: txt || "", page_length: pageLength };
	if (filters) args.filters = filters;
	if (query) args.query = query;
	const body = await call("fw.desk.search.search_link", args, { httpMethod: "GET", signal });
	return Array.isArray(body && body.message) ? body.message : [];
}
