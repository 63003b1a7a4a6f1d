// Display formats (server/desk/static/js/format.js): system date and number formats, precision.
import assert from "node:assert/strict";
import test from "node:test";
import { loadBoot } from "../../../server/desk/static/js/boot.js";
import { formatDate, formatDatetime, formatNumber, formatValue, numberSeparators, timeAgo } from "../../../server/desk/static/js/format.js";

test("dates in every system format", () => {
	assert.equal(formatDate("2024-03-07", "dd-mm-yyyy"), "07-03-2024");
	assert.equal(formatDate("2024-03-07", "mm/dd/yyyy"), "03/07/2024");
	assert.equal(formatDate("2024-03-07", "yyyy-mm-dd"), "2024-03-07");
	assert.equal(formatDate("2024-03-07", "dd.mm.yyyy"), "07.03.2024");
	assert.equal(formatDate("not a date"), "not a date");
	assert.equal(formatDatetime("2024-03-07 14:05:09.123456", { dateFormat: "dd.mm.yyyy", timeFormat: "HH:mm" }), "07.03.2024 14:05");
	assert.equal(formatDatetime("2024-03-07 14:05:09", { dateFormat: "dd-mm-yyyy", timeFormat: "HH:mm:ss" }), "07-03-2024 14:05:09");
});

test("numbers in every system format", () => {
	assert.equal(formatNumber(1234567.891, 2, "#,###.##"), "1,234,567.89");
	assert.equal(formatNumber(1234567.891, 2, "#.###,##"), "1.234.567,89");
	assert.equal(formatNumber(1234567.891, 2, "# ###.##"), "1 234 567.89");
	assert.equal(formatNumber(1234567.891, 2, "#'###.##"), "1'234'567.89");
	assert.equal(formatNumber(1234567.891, 2, "#,##,###.##"), "12,34,567.89");
	assert.equal(formatNumber(-1234.5, 0, "#,###"), "-1,235");
	assert.equal(formatNumber(1234.5, 1, "#.###"), "1.234,5");
	assert.deepEqual(numberSeparators("#.###,##"), { group: ".", decimal: ",", indian: false });
	assert.equal(formatNumber("", 2), "");
	assert.equal(formatNumber("abc", 2), "abc");
});

test("values by field type use the boot's defaults", () => {
	loadBoot({ sysdefaults: { date_format: "dd.mm.yyyy", number_format: "#.###,##", float_precision: 3, currency_precision: 2 }, lang: "en" });
	assert.equal(formatValue("2024-03-07", { fieldtype: "Date" }), "07.03.2024");
	assert.equal(formatValue(1234.5, { fieldtype: "Currency" }), "1.234,50");
	assert.equal(formatValue(2.5, { fieldtype: "Float", precision: 1 }), "2,5");
	assert.equal(formatValue(1, { fieldtype: "Float" }), "1,000");
	assert.equal(formatValue(12, { fieldtype: "Percent", precision: 0 }), "12%");
	assert.equal(formatValue(1, { fieldtype: "Check" }), "Yes");
	assert.equal(formatValue("<img src=x>", { fieldtype: "Data" }), "<img src=x>");
	assert.equal(formatValue(null, { fieldtype: "Int" }), "");
	assert.equal(formatValue([1, 2], { fieldtype: "Table" }), "2");
});

test("ages in the user's language", () => {
	const now = new Date(2024, 2, 7, 12, 0, 0);
	assert.equal(timeAgo("2024-03-07 11:59:50", now, "en"), "just now");
	assert.equal(timeAgo("2024-03-07 11:55:00", now, "en"), "5 minutes ago");
	assert.equal(timeAgo("2024-03-07 10:00:00", now, "en"), "2 hours ago");
	assert.equal(timeAgo("2024-03-05 12:00:00", now, "en"), "2 days ago");
	assert.equal(timeAgo("2024-03-07 10:00:00", now, "de"), "vor 2 Stunden");
	assert.equal(timeAgo("garbage", now, "en"), "");
});
