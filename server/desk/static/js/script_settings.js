// What the apps' list and report scripts declare for the Desk's views: list settings by doctype
// (list_view.js: default filters, formatters, indicators) and report definitions by report name
// (report_view.js: filters, formatter, onload). Scripts write them as Frappe's
// `frappe.listview_settings[doctype] = {...}` and `frappe.query_reports[name] = {...}`: the frappe
// adapter exposes these same objects under those names.
import { boot } from "./boot.js";

export const listviewSettings = {};
export const queryReports = {};

// the framework's own list settings, for doctypes no script set any for: the ToDo list opens on the
// user's own open ToDos (Frappe's todo_list.js)
const CORE_LISTS = {
	ToDo: () => ({ filters: [["allocated_to", "=", boot.user], ["status", "=", "Open"]] }),
};

export function listSettingsOf(doctype) {
	return listviewSettings[doctype] || (CORE_LISTS[doctype] ? CORE_LISTS[doctype]() : {});
}

export function reportSettingsOf(name) {
	return queryReports[name] || {};
}
