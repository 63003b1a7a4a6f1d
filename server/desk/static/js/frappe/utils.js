// `frappe.utils`, `flt`/`cint`/`cstr` and `frappe.format`: the small helpers form scripts call.
// `frappe.format` returns text, not markup (Frappe's returns HTML for some types): the Desk renders
// every value as text, so a script that puts it in a message or a dialog shows it as it is.
// Pure apart from the boot's formats, so `node --test` covers it.
import { slug } from "../boot.js";
import { formatValue } from "../format.js";
import { guessColour } from "../indicators.js";
import { formUrl } from "../routes.js";

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "`": "&#x60;", "=": "&#x3D;" };

/** Frappe's `frappe.utils.escape_html`: markup characters as entities (for scripts that build HTML
 * for other systems; the Desk itself shows values as text). */
export function escape_html(value) {
	if (value === null || value === undefined) return "";
	return String(value).replace(/[&<>"'`=]/g, (ch) => ESCAPES[ch]);
}

/** Frappe's `flt(value, precision)`: a number (0 for anything else), rounded when a precision is given.
 * Text in the user's number format is read as Frappe does ("1,234.5" → 1234.5). */
export function flt(value, precision) {
	let number;
	if (typeof value === "number") number = value;
	else if (typeof value === "string") number = Number.parseFloat(value.replace(/,/g, ""));
	else number = Number(value);
	if (!Number.isFinite(number)) number = 0;
	if (precision === undefined || precision === null) return number;
	// half away from zero (2.675 → 2.68, -2.5 → -3), past binary fractions' representation error
	const factor = 10 ** Number(precision);
	return (Math.sign(number) * Math.round(Math.abs(number) * factor * (1 + Number.EPSILON))) / factor;
}

/** Frappe's `cint`: an integer (0 for anything else). */
export function cint(value) {
	const number = Number.parseInt(typeof value === "boolean" ? Number(value) : value, 10);
	return Number.isFinite(number) ? number : 0;
}

/** Frappe's `cstr`: text ("" for null/undefined). */
export function cstr(value) {
	return value === null || value === undefined ? "" : String(value);
}

/** Frappe's `frappe.format(value, df, options, doc)`: a value as display text. */
export function format(value, df, options, doc) {
	const field = df && typeof df === "object" ? df : { fieldtype: df || "Data" };
	return formatValue(value, field, options, doc);
}

export const utils = {
	escape_html,
	get_form_link: (doctype, name, asHtml = false, label = null) => {
		const url = formUrl(doctype, name, slug);
		// as text even when HTML is asked for: the Desk never parses markup from scripts
		return asHtml ? `${label ?? name} (${url})` : url;
	},
	get_url: (path = "") => `${location.origin}${path && !String(path).startsWith("/") ? "/" : ""}${path || ""}`,
	guess_colour: guessColour,
	guess_style: guessColour,
	flt,
	cint,
	cstr,
	sum: (values) => (values || []).reduce((total, value) => total + flt(value), 0),
	is_mobile: () => typeof window !== "undefined" && window.matchMedia && window.matchMedia("(max-width: 767px)").matches,
	is_html: (text) => /<[a-z!/][^>]*>/i.test(String(text ?? "")),
	strip_html: (text) => String(text ?? "").replace(/<[^>]*>/g, ""),
	unique: (values) => [...new Set(values || [])],
	get_random: (length = 10) =>
		Array.from(crypto.getRandomValues(new Uint8Array(length)), (byte) => "abcdefghijklmnopqrstuvwxyz0123456789"[byte % 36]).join(""),
	to_title_case: (text) => String(text ?? "").replace(/\w\S*/g, (word) => word[0].toUpperCase() + word.slice(1).toLowerCase()),
	copy_to_clipboard: (text) => navigator.clipboard && navigator.clipboard.writeText(String(text ?? "")),
};
