// Values for display, in the system's formats (boot.sysdefaults: date_format, time_format,
// number_format, float_precision, currency_precision). Pure functions of their arguments (the
// defaults come from the boot), so `node --test` covers them. Always text: callers render it as text.
import { boot } from "./boot.js";
import { __ } from "./i18n.js";

const DATE = /^(\d{4})-(\d{2})-(\d{2})/;

function sysdefault(key, fallback) {
	const value = (boot.sysdefaults || {})[key];
	return value === undefined || value === null || value === "" ? fallback : value;
}

/** "2024-03-07" as the system's date format ("dd-mm-yyyy" → "07-03-2024"). */
export function formatDate(value, dateFormat = sysdefault("date_format", "dd-mm-yyyy")) {
	const match = DATE.exec(String(value || ""));
	if (!match) return value ? String(value) : "";
	const [, yyyy, mm, dd] = match;
	return dateFormat.replace("yyyy", yyyy).replace("mm", mm).replace("dd", dd);
}

/** "2024-03-07 14:05:09.123456" as date and time ("HH:mm" drops the seconds). */
export function formatDatetime(value, { dateFormat, timeFormat = sysdefault("time_format", "HH:mm:ss") } = {}) {
	const text = String(value || "");
	const [day, time = ""] = text.split(/[ T]/);
	if (!DATE.test(day)) return text;
	const clock = time.slice(0, timeFormat === "HH:mm" ? 5 : 8);
	return clock ? `${formatDate(day, dateFormat)} ${clock}` : formatDate(day, dateFormat);
}

/** Group and decimal separators of a Frappe number format ("#,###.##", "#.###,##", "#'###.##", ...). */
export function numberSeparators(numberFormat = sysdefault("number_format", "#,###.##")) {
	const info = { group: ",", decimal: ".", indian: numberFormat === "#,##,###.##" };
	const match = /^#(.)###(?:(.)(#+))?$/.exec(numberFormat.replace("#,##,###", "#,###"));
	if (match) {
		info.group = match[1];
		info.decimal = match[2] || (match[1] === "." ? "," : ".");
	}
	return info;
}

/** A number with the system's separators and `precision` decimals. */
export function formatNumber(value, precision = null, numberFormat = sysdefault("number_format", "#,###.##")) {
	if (value === null || value === undefined || value === "") return "";
	const number = Number(value);
	if (!Number.isFinite(number)) return String(value);
	const { group, decimal, indian } = numberSeparators(numberFormat);
	const fixed = precision === null || precision === undefined ? String(Math.abs(number)) : Math.abs(number).toFixed(precision);
	let [whole, fraction = ""] = fixed.split(".");
	if (indian && whole.length > 3) {
		const head = whole.slice(0, -3).replace(/\B(?=(\d{2})+(?!\d))/g, group);
		whole = `${head}${group}${whole.slice(-3)}`;
	} else {
		whole = whole.replace(/\B(?=(\d{3})+(?!\d))/g, group);
	}
	const sign = number < 0 ? "-" : "";
	return fraction ? `${sign}${whole}${decimal}${fraction}` : `${sign}${whole}`;
}

/** The decimals a field shows: its precision, else the system's float or currency precision. */
export function precisionOf(df) {
	if (df && df.precision !== undefined && df.precision !== null && df.precision !== "") return Number(df.precision);
	if (df && df.fieldtype === "Currency") return Number(sysdefault("currency_precision", 2));
	if (df && (df.fieldtype === "Float" || df.fieldtype === "Percent")) return Number(sysdefault("float_precision", 3));
	return null;
}

/** A field's value as display text (lists, read-only fields). */
export function formatValue(value, df = {}) {
	if (value === null || value === undefined || value === "") return "";
	switch (df.fieldtype) {
		case "Check":
			return Number(value) ? __("Yes") : __("No");
		case "Int":
		case "Long Int":
			return formatNumber(value, 0);
		case "Float":
		case "Currency":
		case "Percent": {
			const text = formatNumber(value, precisionOf(df));
			return df.fieldtype === "Percent" ? `${text}%` : text;
		}
		case "Date":
			return formatDate(value);
		case "Datetime":
			return formatDatetime(value);
		case "Select":
			return __(String(value));
		case "Table":
		case "Table MultiSelect":
			return Array.isArray(value) ? String(value.length) : "";
		default:
			return typeof value === "object" ? JSON.stringify(value) : String(value);
	}
}

const UNITS = [
	["year", 365 * 24 * 3600],
	["month", 30 * 24 * 3600],
	["week", 7 * 24 * 3600],
	["day", 24 * 3600],
	["hour", 3600],
	["minute", 60],
];

const relativeFormats = new Map();

// one formatter per language: a list of 500 rows would otherwise build 500 of them
function relativeFormat(lang) {
	if (!relativeFormats.has(lang)) relativeFormats.set(lang, new Intl.RelativeTimeFormat(lang, { numeric: "auto" }));
	return relativeFormats.get(lang);
}

/** A server timestamp ("2024-03-07 14:05:09") as "5 minutes ago" in the user's language. */
export function timeAgo(value, now = new Date(), lang = boot.lang || "en") {
	const match = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(String(value || ""));
	if (!match) return "";
	const [, y, mo, d, h, mi, s] = match.map(Number);
	const seconds = Math.round((now.getTime() - new Date(y, mo - 1, d, h, mi, s).getTime()) / 1000);
	const format = relativeFormat(lang);
	if (Math.abs(seconds) < 45) return __("just now");
	for (const [unit, size] of UNITS) {
		if (Math.abs(seconds) >= size) return format.format(-Math.round(seconds / size), unit);
	}
	return format.format(-Math.round(seconds / 60), "minute");
}
