// The global `frappe` namespace form scripts are written against (desk.md §5), plus `__`, `locals`,
// `cur_frm` and fw's own aliases (`fw.ui.form`, `fw.ui.open_list`). main.js installs it before any
// app script runs. This is the skeleton the form-scripts helper completes (db, model, datetime,
// format, ui.Dialog, prompt, utils, ...): each part lives in its own module of js/frappe/.
import { call as apiCall, request } from "../api.js";
import { boot, hasRole } from "../boot.js";
import { __ } from "../i18n.js";
import { locals } from "../model.js";
import * as realtime from "../realtime.js";
import { getRoute, setRoute, setRouteOptions, takeRouteOptions } from "../router.js";
import { confirmDialog, msgprint } from "../ui/confirm.js";
import { showToast } from "../ui/layers.js";
import { showError } from "../ui/messages.js";
import { Form } from "./form.js";
import { on } from "./form_events.js";

/** Frappe's `frappe.provide("a.b.c")`: the nested namespace, created where missing. */
export function provide(root, path) {
	let node = root;
	for (const part of String(path).split(".")) {
		if (!part) continue;
		if (node[part] === undefined || node[part] === null) node[part] = {};
		node = node[part];
	}
	return node;
}

/**
 * Frappe's `frappe.call`: `frappe.call({method, args, callback, error, type, freeze})` or
 * `frappe.call(method, args)`. Resolves to the response body (`r.message`); a failure is shown
 * (as Frappe does) and rejects; `error(r)` is called with the failed body.
 */
export async function frappeCall(options, args) {
	const opts = typeof options === "string" ? { method: options, args } : options || {};
	const httpMethod = String(opts.type || "POST").toUpperCase();
	try {
		const body = (await apiCall(opts.method, opts.args || {}, { httpMethod })) || {};
		if (typeof opts.callback === "function") opts.callback(body);
		return body;
	} catch (error) {
		if (typeof opts.error === "function") opts.error(error.body || {});
		if (!opts.silent) showError(error);
		throw error;
	}
}

export function installFrappe(target = window) {
	const frappe = target.frappe && typeof target.frappe === "object" ? target.frappe : {};
	Object.assign(frappe, {
		boot,
		provide: (path) => provide(target, path),
		_: __,
		session: { user: boot.user, user_fullname: boot.full_name, lang: boot.lang },
		user_roles: [...(boot.roles || [])],
		user: {
			name: boot.user,
			full_name: () => boot.full_name,
			has_role: (roles) => (Array.isArray(roles) ? roles : [roles]).some((role) => hasRole(role)),
		},
		call: frappeCall,
		xcall: async (method, args) => (await frappeCall({ method, args })).message,
		request,
		validated: true,
		msgprint: (message, title) => {
			const opts = message && typeof message === "object" ? message : { message, title };
			return msgprint(opts.message, { title: opts.title, indicator: opts.indicator });
		},
		show_alert: (message, seconds) => {
			const opts = message && typeof message === "object" ? message : { message };
			return showToast(opts.message, { indicator: opts.indicator || "blue", seconds });
		},
		throw: (message) => {
			const opts = message && typeof message === "object" ? message : { message };
			msgprint(opts.message, { title: opts.title || __("Message"), indicator: opts.indicator || "red" });
			throw new Error(String(opts.message));
		},
		confirm: (message, ifYes, ifNo) =>
			confirmDialog(message).then((yes) => {
				if (yes && typeof ifYes === "function") ifYes();
				if (!yes && typeof ifNo === "function") ifNo();
				return yes;
			}),
		set_route: (...args) => setRoute(...args),
		get_route: () => getRoute(),
		listview_settings: frappe.listview_settings || {},
		query_reports: frappe.query_reports || {},
		realtime: { on: realtime.on, off: realtime.off },
	});
	Object.defineProperty(frappe, "route_options", {
		configurable: true,
		get: () => {
			const options = takeRouteOptions();
			setRouteOptions(options); // reading does not consume: the next view takes them
			return options;
		},
		set: (value) => setRouteOptions(value),
	});
	const ui = provide(frappe, "ui");
	const form = provide(ui, "form");
	form.on = on;
	form.Form = Form;
	target.frappe = frappe;
	target.__ = __;
	target.locals = locals;
	if (!("cur_frm" in target)) target.cur_frm = null;
	// fw's own names (the reference app's first form script used them)
	const fw = target.fw && typeof target.fw === "object" ? target.fw : {};
	fw.ui = { ...(fw.ui || {}), form: (doctype, handlers) => on(doctype, handlers), open_list: (doctype, filters) => setRoute("List", doctype, filters) };
	target.fw = fw;
	return frappe;
}
