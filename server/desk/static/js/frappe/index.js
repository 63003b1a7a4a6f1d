// The global `frappe` namespace form scripts are written against (desk.md §5), plus `__`, `locals`,
// `cur_frm`, `flt`/`cint`/`cstr` and fw's own aliases (`fw.ui.form`, `fw.ui.open_list`). main.js
// installs it before any app script runs. It is an adapter: Frappe's names over the Desk's own
// modules, which never read it (tests/desk/test_frappe_adapter.py). The form model is js/form/
// (`frappe.ui.form.on` is form/events.js's `on`, `cur_frm` form/current.js, `frappe.validated`
// form/validation.js); `frappe.listview_settings` and `frappe.query_reports` are script_settings.js's.
// Each Frappe API lives in its own module of js/frappe/: `form.js` (frm's script-only names),
// `db.js` (frappe.db), `model.js` (frappe.model), `datetime.js`, `utils.js` (frappe.utils,
// frappe.format), `dialog.js` (frappe.ui.Dialog, frappe.prompt).
import { call as apiCall, request } from "../api.js";
import { boot, doctypeInfo, hasRole, slug } from "../boot.js";
import { __ } from "../i18n.js";
import { docIndicator } from "../indicators.js";
import { cachedMeta, getField, getMeta, loadScript } from "../meta.js";
import { locals } from "../model.js";
import * as realtime from "../realtime.js";
import { getRoute, setRoute, setRouteOptions, takeRouteOptions } from "../router.js";
import { confirmDialog, msgprint } from "../ui/confirm.js";
import { showToast } from "../ui/layers.js";
import { showError } from "../ui/messages.js";
import { setFormClass } from "../form/create.js";
import { currentForm, setCurrentForm } from "../form/current.js";
import { on } from "../form/events.js";
import { setValidated, validatedValue } from "../form/validation.js";
import { listviewSettings, queryReports } from "../script_settings.js";
import { datetime } from "./datetime.js";
import { makeDb } from "./db.js";
import { Dialog, prompt } from "./dialog.js";
import { FrappeForm } from "./form.js";
import { makeModel } from "./model.js";
import { cint, cstr, flt, format, utils } from "./utils.js";

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

/** `set_route("Form", <a Single>)` opens the Single's form (its URL is the doctype's own, as in
 * Frappe), not a new document. */
export function singleFormRoute(args, info = doctypeInfo) {
	const parts = args.length === 1 && Array.isArray(args[0]) ? args[0] : args;
	const [kind, doctype, name] = parts;
	const single = typeof doctype === "string" && info(doctype) && Number(info(doctype).issingle);
	if (String(kind || "").toLowerCase() === "form" && single && (!name || name === doctype)) return [`/app/${slug(doctype)}`];
	return args;
}

function defaultOf(key) {
	for (const source of [boot.user_defaults || boot.defaults || {}, boot.sysdefaults || {}]) {
		for (const name of [key, String(key).toLowerCase(), String(key).toLowerCase().replace(/ /g, "_")]) {
			if (source[name] !== undefined && source[name] !== null && source[name] !== "") return source[name];
		}
	}
	return undefined;
}

/** Frappe's `frappe.throw`: the message in a dialog, then an error that stops the caller (a save's
 * `validate` stops without showing it twice). */
export function throwMessage(message, title) {
	const opts = message && typeof message === "object" ? message : { message, title };
	msgprint(opts.message, { title: opts.title || __("Message"), indicator: opts.indicator || "red" });
	const error = new Error(String(opts.message ?? ""));
	error.shown = true;
	throw error;
}

/** Frappe's `frappe.get_indicator(doc, doctype)`: [label, colour, filter] by the Desk's one rule
 * (indicators.js, as the list shows it), or undefined. */
export function getIndicator(doc, doctype, settings = listviewSettings) {
	const dt = doctype || (doc && doc.doctype);
	const meta = cachedMeta(dt) || { name: dt, fields: [] };
	const found = docIndicator(doc, meta, settings[dt] || {});
	return found ? [found.label, found.color, found.filter] : undefined;
}

/** `owner[name]` is the Desk's own registry object: entries a script adds land there, and a script
 * that assigns a whole object adds its entries (as do entries set before the install). */
function exposeRegistry(owner, name, registry) {
	const before = owner[name];
	Object.defineProperty(owner, name, {
		configurable: true,
		enumerable: true,
		get: () => registry,
		set: (value) => {
			if (value && typeof value === "object" && value !== registry) Object.assign(registry, value);
		},
	});
	if (before && typeof before === "object" && before !== registry) Object.assign(registry, before);
}

export function installFrappe(target = window) {
	const frappe = target.frappe && typeof target.frappe === "object" ? target.frappe : {};
	// frappe.db's calls go through frappe.call in Frappe: a refused one shows the server's message
	const call = async (method, args, options) => {
		try {
			return await apiCall(method, args, options);
		} catch (error) {
			showError(error);
			throw error;
		}
	};
	const db = makeDb(call);
	const model = makeModel({ db, getMeta, cachedMeta, currentForm, user: () => boot.user, doctypeInfo });
	Object.assign(frappe, {
		boot,
		provide: (path) => provide(target, path),
		_: __,
		session: { user: boot.user, user_email: boot.user, user_fullname: boot.full_name, lang: boot.lang },
		user_roles: [...(boot.roles || [])],
		user: {
			name: boot.user,
			full_name: () => boot.full_name,
			has_role: (roles) => (Array.isArray(roles) ? roles : [roles]).some((role) => hasRole(role)),
		},
		call: frappeCall,
		xcall: async (method, args) => (await frappeCall({ method, args })).message,
		request,
		msgprint: (message, title) => {
			const opts = message && typeof message === "object" ? message : { message, title };
			const handle = msgprint(opts.message, { title: opts.title, indicator: opts.indicator });
			return Object.assign(handle, { hide: () => handle.close(), set_title: (text) => handle.update({ title: String(text) }) });
		},
		show_alert: (message, seconds) => {
			const opts = message && typeof message === "object" ? message : { message };
			return showToast(opts.message, { indicator: opts.indicator || "blue", seconds });
		},
		throw: throwMessage,
		confirm: (message, ifYes, ifNo) =>
			confirmDialog(message).then((yes) => {
				if (yes && typeof ifYes === "function") ifYes();
				if (!yes && typeof ifNo === "function") ifNo();
				return yes;
			}),
		set_route: (...args) => setRoute(...singleFormRoute(args)),
		get_route: () => getRoute(),
		realtime: { on: realtime.on, off: realtime.off },
		db,
		model,
		datetime,
		utils,
		format,
		format_value: format,
		prompt,
		get_indicator: (doc, doctype) => getIndicator(doc, doctype),
		get_meta: (doctype) => cachedMeta(doctype),
		// Frappe's defaults: the user's (when the boot carries them), else the system's
		defaults: {
			get_default: (key) => defaultOf(key),
			get_user_default: (key) => defaultOf(key),
			get_global_default: (key) => (boot.sysdefaults || {})[key] ?? (boot.sysdefaults || {})[String(key).toLowerCase()],
			get_user_defaults: (key) => {
				const value = defaultOf(key);
				return value === undefined || value === null ? [] : [value];
			},
		},
		meta: {
			get_docfield: (doctype, fieldname) => {
				const meta = cachedMeta(doctype);
				return meta ? getField(meta, fieldname) : null;
			},
			get_meta: (doctype) => cachedMeta(doctype),
			has_field: (doctype, fieldname) => Boolean(cachedMeta(doctype) && getField(cachedMeta(doctype), fieldname)),
		},
		get_doc: (doctype, name) => model.get_doc(doctype, name),
		new_doc: (doctype, options) => {
			if (options && typeof options === "object") setRouteOptions(options);
			return setRoute("Form", doctype);
		},
		/** Frappe's `frappe.require(urls, callback)`: scripts by URL (CSS by a <link>), once each. */
		require: async (urls, callback) => {
			for (const url of Array.isArray(urls) ? urls : [urls]) {
				if (String(url).endsWith(".css")) {
					const link = document.createElement("link");
					link.rel = "stylesheet";
					link.href = url;
					document.head.append(link);
				} else {
					await loadScript(url);
				}
			}
			if (typeof callback === "function") callback();
		},
		run_serially: async (tasks) => {
			const results = [];
			for (const task of tasks || []) results.push(typeof task === "function" ? await task() : await task);
			return results;
		},
		after_ajax: (fn) => Promise.resolve().then(() => typeof fn === "function" && fn()),
	});
	exposeRegistry(frappe, "listview_settings", listviewSettings);
	exposeRegistry(frappe, "query_reports", queryReports);
	// a script stops a save with `frappe.validated = false` (views/form/save.js asks form/validation.js)
	Object.defineProperty(frappe, "validated", { configurable: true, enumerable: true, get: validatedValue, set: setValidated });
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
	form.Form = FrappeForm;
	setFormClass(FrappeForm); // the form view's frm is Frappe's
	ui.Dialog = Dialog;
	ui.form.States = ui.form.States || {};
	target.frappe = frappe;
	target.__ = __;
	target.locals = locals;
	target.flt = flt;
	target.cint = cint;
	target.cstr = cstr;
	Object.defineProperty(target, "cur_frm", { configurable: true, enumerable: true, get: currentForm, set: setCurrentForm });
	// fw's own names (the reference app's first form script used them)
	const fw = target.fw && typeof target.fw === "object" ? target.fw : {};
	fw.ui = { ...(fw.ui || {}), form: (doctype, handlers) => on(doctype, handlers), open_list: (doctype, filters) => setRoute("List", doctype, filters) };
	target.fw = fw;
	return frappe;
}
