// The top bar's bell (business.md §2.3 and §6): a button named "Notifications" with the unread count,
// kept live by the realtime `notification` event (and reloaded after a reconnect); its panel lists the
// newest Notification Logs, a click opens the document and marks the entry read, and "Mark all as
// read" clears the count. Subjects render as text. Escape or a click outside closes the panel. The
// count comes with the boot and the entries are read when the panel first opens (or a notification
// arrives), so a page load costs no request of the bell's.
import { call } from "../api.js";
import { boot, slug } from "../boot.js";
import { timeAgo } from "../format.js";
import { __ } from "../i18n.js";
import { html, useEffect, useId, useRef, useState } from "../lib/html.js";
import { on } from "../realtime.js";
import { navigate } from "../router.js";
import { formUrl, listUrl } from "../routes.js";
import { showError } from "./messages.js";

const METHODS = "fw.desk.doctype.notification_log.notification_log";
const SHOWN = 20;

/** The unread count as the badge shows it ("99+" past 99; empty for none). */
export function badgeText(count) {
	if (!count) return "";
	return count > 99 ? "99+" : String(count);
}

export function Notifications() {
	const [state, setState] = useState({ logs: [], unread: Number(boot.unread_notifications) || 0, loaded: false });
	const [open, setOpen] = useState(false);
	const root = useRef(null);
	const button = useRef(null);
	const panelId = useId();
	const countId = useId();

	async function load() {
		try {
			const body = await call(`${METHODS}.get_notification_logs`, { limit: SHOWN }, { httpMethod: "GET" });
			const data = (body && body.message) || {};
			setState({ logs: data.notification_logs || [], unread: data.unread_count || 0, loaded: true });
		} catch (error) {
			console.error("notifications", error);
		}
	}

	useEffect(() => {
		const stops = [on("notification", load), on("reconnect", load)];
		return () => stops.forEach((stop) => stop && stop());
	}, []);

	useEffect(() => {
		if (!open) return undefined;
		if (!state.loaded) load();
		const outside = (event) => {
			if (root.current && !root.current.contains(event.target)) setOpen(false);
		};
		// Escape closes the panel wherever the focus is (a button that was just disabled drops it)
		const escape = (event) => {
			if (event.key !== "Escape" || event.defaultPrevented) return;
			event.preventDefault();
			setOpen(false);
			if (button.current) button.current.focus();
		};
		document.addEventListener("mousedown", outside);
		document.addEventListener("keydown", escape);
		return () => {
			document.removeEventListener("mousedown", outside);
			document.removeEventListener("keydown", escape);
		};
	}, [open]);

	async function openEntry(entry) {
		setOpen(false);
		try {
			if (!Number(entry.read)) await call(`${METHODS}.mark_as_read`, { docname: entry.name });
		} catch (error) {
			showError(error);
		}
		load();
		if (entry.document_type && entry.document_name) navigate(formUrl(entry.document_type, entry.document_name, slug));
	}

	async function markAll() {
		try {
			await call(`${METHODS}.mark_all_as_read`);
		} catch (error) {
			showError(error);
			return;
		}
		load();
	}

	const badge = badgeText(state.unread);
	return html`<div class="notifications" ref=${root}>
		<button type="button" class="btn-icon notifications-bell" ref=${button} aria-label=${__("Notifications")}
			aria-describedby=${countId} aria-expanded=${open ? "true" : "false"} aria-controls=${panelId}
			title=${__("Notifications")} onClick=${() => setOpen(!open)}>
			<span aria-hidden="true">🔔</span>
			${badge ? html`<span class="notifications-count" aria-hidden="true">${badge}</span>` : null}
		</button>
		<span id=${countId} hidden>${__("{0} unread", [state.unread])}</span>
		${open
			? html`<section id=${panelId} class="notifications-panel" role="dialog" aria-label=${__("Notifications")}>
					<header class="notifications-head">
						<h2>${__("Notifications")}</h2>
						<button type="button" class="btn btn-link" disabled=${!state.unread} onClick=${markAll}>${__("Mark all as read")}</button>
					</header>
					${state.logs.length
						? html`<ul class="notifications-list">
								${state.logs.map(
									(entry) => html`<li key=${entry.name} class=${Number(entry.read) ? "read" : "unread"}>
										<button type="button" class="notifications-entry" onClick=${() => openEntry(entry)}>
											<span class="notifications-subject">${entry.subject || entry.document_name || ""}</span>
											${Number(entry.read) ? null : html`<span class="sr-only">${__("Unread")}</span>`}
											<time datetime=${entry.creation}>${timeAgo(entry.creation)}</time>
										</button>
									</li>`,
								)}
							</ul>`
						: html`<p class="notifications-empty">${state.loaded ? __("No new notifications") : __("Loading…")}</p>`}
					<a class="notifications-all" href=${listUrl("Notification Log", [], slug)} onClick=${() => setOpen(false)}>${__("View all")}</a>
				</section>`
			: null}
	</div>`;
}
