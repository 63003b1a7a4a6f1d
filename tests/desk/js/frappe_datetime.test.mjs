// frappe.datetime (server/desk/static/js/frappe/datetime.js): calendar arithmetic on the server's
// text forms, and the system's date format both ways.
import assert from "node:assert/strict";
import test from "node:test";
import { loadBoot } from "../../../server/desk/static/js/boot.js";
import { datetime } from "../../../server/desk/static/js/frappe/datetime.js";

test("adding days and months", () => {
	assert.equal(datetime.add_days("2024-02-28", 1), "2024-02-29");
	assert.equal(datetime.add_days("2024-03-01", -1), "2024-02-29");
	assert.equal(datetime.add_days("2023-12-31 23:10:00", 1), "2024-01-01 23:10:00");
	assert.equal(datetime.add_months("2024-01-31", 1), "2024-02-29");
	assert.equal(datetime.add_months("2023-01-31", 1), "2023-02-28");
	assert.equal(datetime.add_months("2024-03-15", -3), "2023-12-15");
	assert.equal(datetime.add_months("2024-11-30", 14), "2026-01-30");
	assert.equal(datetime.add_days("not a date", 3), "not a date");
});

test("month and year bounds, differences", () => {
	assert.equal(datetime.month_start("2024-02-17"), "2024-02-01");
	assert.equal(datetime.month_end("2024-02-17"), "2024-02-29");
	assert.equal(datetime.month_end("2023-02-17 10:00:00"), "2023-02-28");
	assert.equal(datetime.year_start("2024-06-01"), "2024-01-01");
	assert.equal(datetime.year_end("2024-06-01"), "2024-12-31");
	assert.equal(datetime.get_day_diff("2024-03-01", "2024-02-01"), 29);
	assert.equal(datetime.get_diff("2024-01-01", "2024-01-11"), -10);
	assert.match(datetime.get_today(), /^\d{4}-\d{2}-\d{2}$/);
	assert.equal(datetime.now_date(), datetime.get_today());
	assert.match(datetime.now_datetime(), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
});

test("the system's date format both ways", () => {
	loadBoot({ sysdefaults: { date_format: "dd.mm.yyyy" } });
	assert.equal(datetime.str_to_user("2024-03-07"), "07.03.2024");
	assert.equal(datetime.str_to_user("2024-03-07 09:05:00"), "07.03.2024 09:05:00");
	assert.equal(datetime.user_to_str("07.03.2024"), "2024-03-07");
	assert.equal(datetime.user_to_str("7.3.2024 09:05"), "2024-03-07 09:05:00");
	assert.equal(datetime.user_to_str("2024-03-07"), "2024-03-07"); // already the server's
	assert.equal(datetime.user_to_str("31.02.2024"), "31.02.2024"); // no such day: left as typed
	loadBoot({ sysdefaults: { date_format: "mm/dd/yyyy" } });
	assert.equal(datetime.str_to_user("2024-03-07"), "03/07/2024");
	assert.equal(datetime.user_to_str("03/07/2024"), "2024-03-07");
	assert.equal(datetime.str_to_user(""), "");
	assert.equal(datetime.str_to_user(null), "");
	assert.equal(datetime.str_to_obj("2024-03-07 10:20:30").getHours(), 10);
});
