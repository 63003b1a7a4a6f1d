// What the apps' list and report scripts declare for the Desk's views: list settings by doctype
// (list_view.js: default filters, formatters, indicators) and report definitions by report name
// (report_view.js: filters, formatter, onload). Scripts write them as Frappe's
// `frappe.listview_settings[doctype] = {...}` and `frappe.query_reports[name] = {...}`: the frappe
// adapter exposes these same objects under those names.
export const listviewSettings = {};
export const queryReports = {};

export function listSettingsOf(doctype) {
	return listviewSettings[doctype] || {};
}

export function reportSettingsOf(name) {
	return queryReports[name] || {};
}
