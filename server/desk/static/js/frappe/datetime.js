// `frappe.datetime`: the date helpers form scripts use, on the server's text forms ("YYYY-MM-DD",
// "YYYY-MM-DD HH:mm:ss") and the system's date format for what users read and type. Calendar arithmetic
// is done on the date's parts (never through the browser's time zone), as Frappe's moment-based
// helpers do. Pure apart from the clock and the boot's date format, so `node --test` covers it.
import { boot } from "../boot.js";
import { timeAgo } from "../format.js";
import { nowDatetime, nowTime, today } from "../model.js";

const DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?$/;

function pad(n, width = 2) {
	return String(n).padStart(width, "0");
}

function dateFormat() {
	return (boot.sysdefaults && boot.sysdefaults.date_format) || "dd-mm-yyyy";
}

/** The parts of a date or datetime text ({y, m, d, time}), or null when it is none. */
export function parse(value) {
	if (value instanceof Date) {
		return { y: value.getFullYear(), m: value.getMonth() + 1, d: value.getDate(), time: nowTime(value) };
	}
	const match = DATE.exec(String(value ?? "").trim());
	if (!match) return null;
	const [, y, m, d, hh, mm, ss] = match;
	const time = hh === undefined ? null : `${pad(hh)}:${mm}:${ss || "00"}`;
	return { y: Number(y), m: Number(m), d: Number(d), time };
}

function daysIn(y, m) {
	return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

function text(parts, withTime) {
	const day = `${pad(parts.y, 4)}-${pad(parts.m)}-${pad(parts.d)}`;
	return withTime && parts.time ? `${day} ${parts.time}` : day;
}

/** Days added to a date (a datetime keeps its time); negative days go back. */
export function add_days(value, days) {
	const parts = parse(value);
	if (!parts) return value;
	const moved = new Date(Date.UTC(parts.y, parts.m - 1, parts.d + Number(days || 0)));
	return text({ y: moved.getUTCFullYear(), m: moved.getUTCMonth() + 1, d: moved.getUTCDate(), time: parts.time }, true);
}

/** Months added; the day is kept, or the month's last day when it has fewer ("2024-01-31" + 1 → "2024-02-29"). */
export function add_months(value, months) {
	const parts = parse(value);
	if (!parts) return value;
	const index = parts.y * 12 + (parts.m - 1) + Number(months || 0);
	const y = Math.floor(index / 12);
	const m = (index % 12) + 1;
	return text({ y, m, d: Math.min(parts.d, daysIn(y, m)), time: parts.time }, true);
}

export function month_start(value) {
	const parts = parse(value ?? today());
	return parts ? text({ ...parts, d: 1 }, false) : value;
}

export function month_end(value) {
	const parts = parse(value ?? today());
	return parts ? text({ ...parts, d: daysIn(parts.y, parts.m) }, false) : value;
}

export function year_start(value) {
	const parts = parse(value ?? today());
	return parts ? text({ y: parts.y, m: 1, d: 1 }, false) : value;
}

export function year_end(value) {
	const parts = parse(value ?? today());
	return parts ? text({ y: parts.y, m: 12, d: 31 }, false) : value;
}

function serial(parts) {
	return Date.UTC(parts.y, parts.m - 1, parts.d);
}

/** Whole days from `b` to `a` (Frappe's `get_day_diff(a, b)`: a − b). */
export function get_day_diff(a, b) {
	const pa = parse(a);
	const pb = parse(b);
	if (!pa || !pb) return null;
	return Math.round((serial(pa) - serial(pb)) / 86_400_000);
}

/** Frappe's `get_diff(a, b)`: whole days, a − b (as `get_day_diff`). */
export function get_diff(a, b) {
	return get_day_diff(a, b);
}

/** A date as the user reads it, in the system's date format ("2024-03-07" → "07-03-2024"). */
export function str_to_user(value, onlyTime = false) {
	const parts = parse(value);
	if (!parts) return value ? String(value) : "";
	if (onlyTime) return parts.time || "";
	const day = dateFormat().replace("yyyy", pad(parts.y, 4)).replace("mm", pad(parts.m)).replace("dd", pad(parts.d));
	return parts.time ? `${day} ${parts.time}` : day;
}

/** What a user typed in the system's date format as the server's text ("07-03-2024" → "2024-03-07"). */
export function user_to_str(value, onlyTime = false) {
	const input = String(value ?? "").trim();
	if (!input) return "";
	if (onlyTime) return input;
	if (parse(input)) return input; // already the server's form
	const [day, time] = input.split(/\s+/, 2);
	const format = dateFormat();
	const order = format.split(/[^dmy]+/).filter(Boolean); // ["dd", "mm", "yyyy"]
	const values = day.split(/[^0-9]+/).filter(Boolean);
	if (order.length !== 3 || values.length !== 3) return input;
	const parts = {};
	order.forEach((key, i) => (parts[key[0]] = Number(values[i])));
	if (!parts.y || !parts.m || !parts.d || parts.m > 12 || parts.d > daysIn(parts.y, parts.m)) return input;
	const out = `${pad(parts.y, 4)}-${pad(parts.m)}-${pad(parts.d)}`;
	return time ? `${out} ${time.length === 5 ? `${time}:00` : time}` : out;
}

/** The datetime (or date) `value` as a `Date` in the browser's time zone. */
export function str_to_obj(value) {
	const parts = parse(value);
	if (!parts) return null;
	const [hh, mm, ss] = (parts.time || "00:00:00").split(":").map(Number);
	return new Date(parts.y, parts.m - 1, parts.d, hh, mm, ss);
}

/** A `Date` as the server's datetime text. */
export function obj_to_str(date) {
	return date instanceof Date ? nowDatetime(date) : String(date ?? "");
}

export function user_fmt() {
	return dateFormat();
}

export const datetime = {
	get_today: () => today(),
	now_date: (asObject = false) => (asObject ? new Date() : today()),
	now_datetime: (asObject = false) => (asObject ? new Date() : nowDatetime()),
	now_time: () => nowTime(),
	nowdate: () => today(),
	add_days,
	add_months,
	month_start,
	month_end,
	year_start,
	year_end,
	get_day_diff,
	get_diff,
	str_to_user,
	user_to_str,
	str_to_obj,
	obj_to_str,
	get_user_date_fmt: user_fmt,
	get_user_fmt: user_fmt,
	global_date_format: (value) => str_to_user(value),
	/** "5 minutes ago" (text; Frappe's returns markup). */
	comment_when: (value) => timeAgo(value),
};
