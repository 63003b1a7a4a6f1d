// frappe.db (one fw.client call each, answers shaped as Frappe's), frappe.model (values of the open
// form go through frm, so events fire) and the frm's child tables (`<table>_add`, `<table>_remove`,
// child field events with frm, cdt, cdn), savesubmit handing over to the view, Link queries of child columns.
import assert from "node:assert/strict";
import test from "node:test";
import { loadBoot } from "../../../server/desk/static/js/boot.js";
import { makeDb } from "../../../server/desk/static/js/frappe/db.js";
import { FrappeForm } from "../../../server/desk/static/js/frappe/form.js";
import { clearHandlers, on } from "../../../server/desk/static/js/form/events.js";
import { makeModel } from "../../../server/desk/static/js/frappe/model.js";
import { cachedMeta, getMeta } from "../../../server/desk/static/js/meta.js";
import { locals } from "../../../server/desk/static/js/model.js";

const parentMeta = {
	name: "Scoring Settings", modified: "m1", is_submittable: 1,
	fields: [
		{ fieldname: "title", fieldtype: "Data" },
		{ fieldname: "thresholds", fieldtype: "Table", options: "Performance Level Threshold" },
	],
};
const childMeta = {
	name: "Performance Level Threshold", modified: "m1", istable: 1,
	fields: [
		{ fieldname: "level", fieldtype: "Select", options: "Low\nHigh", reqd: 1 },
		{ fieldname: "min_score", fieldtype: "Float", default: "35" },
		{ fieldname: "employee", fieldtype: "Link", options: "Employee" },
	],
};

function fakeCall(answers) {
	const calls = [];
	const call = async (method, args, options) => {
		calls.push([method, args, options.httpMethod]);
		const answer = answers[method];
		return typeof answer === "function" ? answer(args) : answer;
	};
	return { calls, call };
}

test("frappe.db: each helper is one fw.client call, answered as Frappe answers", async () => {
	const { calls, call } = fakeCall({
		"fw.client.get_value": (args) => ({ message: args.filters === "missing" ? {} : { name: "HR-EMP-1", employee_name: "Ada" } }),
		"fw.client.get_list": { message: [{ name: "A" }] },
		"fw.client.get": { message: { name: "HR-EMP-1", doctype: "Employee" } },
		"fw.client.get_count": { message: 7 },
		"fw.client.set_value": { message: { name: "HR-EMP-1", status: "Left" } },
		"fw.client.insert": { message: { name: "HR-EMP-9" } },
		"fw.client.delete": { message: null },
	});
	const db = makeDb(call);
	let seen = null;
	const value = await db.get_value("Employee", "HR-EMP-1", ["employee_name"], (message) => (seen = message));
	assert.deepEqual(value, { message: { name: "HR-EMP-1", employee_name: "Ada" } });
	assert.deepEqual(seen, value.message);
	assert.deepEqual(calls[0], ["fw.client.get_value", { doctype: "Employee", fieldname: '["employee_name"]', filters: "HR-EMP-1" }, "GET"]);
	await db.get_value("Employee", { status: "Active" }, "name");
	assert.equal(calls[1][1].filters, '{"status":"Active"}');
	assert.deepEqual(await db.get_list("Employee", { fields: ["name"], filters: { status: "Active" }, limit: 5, order_by: "name asc" }), [{ name: "A" }]);
	assert.deepEqual(calls[2][1], { doctype: "Employee", fields: '["name"]', filters: '{"status":"Active"}', order_by: "name asc", limit_page_length: 5 });
	assert.equal((await db.get_doc("Employee", "HR-EMP-1")).name, "HR-EMP-1");
	assert.equal(await db.exists("Employee", "HR-EMP-1"), "HR-EMP-1");
	assert.equal(await db.exists("Employee", "missing"), false);
	assert.equal(await db.count("Employee", { filters: { status: "Active" } }), 7);
	assert.equal(calls.at(-1)[1].filters, '{"status":"Active"}');
	const set = await db.set_value("Employee", "HR-EMP-1", "status", "Left");
	assert.equal(set.message.status, "Left");
	assert.deepEqual(calls.at(-1), ["fw.client.set_value", { doctype: "Employee", name: "HR-EMP-1", fieldname: "status", value: "Left" }, "POST"]);
	await db.set_value("Employee", "HR-EMP-1", { status: "Left", branch: "B" });
	assert.equal(calls.at(-1)[1].fieldname, '{"status":"Left","branch":"B"}');
	assert.equal((await db.insert({ doctype: "Employee" })).name, "HR-EMP-9");
	await db.delete_doc("Employee", "HR-EMP-9");
	assert.deepEqual(calls.at(-1), ["fw.client.delete", { doctype: "Employee", name: "HR-EMP-9" }, "POST"]);
});

async function loadMetas() {
	const store = new Map();
	globalThis.localStorage = {
		getItem: (key) => store.get(key) ?? null,
		setItem: (key, value) => store.set(key, value),
		removeItem: (key) => store.delete(key),
		key: (i) => [...store.keys()][i],
		get length() {
			return store.size;
		},
	};
	loadBoot({ user: "a@example.com", lang: "en", roles: ["System Manager"], meta_version: "v1", meta_modified: { [parentMeta.name]: "m1", [childMeta.name]: "m1" },
		rights: { [parentMeta.name]: { read: 1, write: 1, create: 1, submit: 1 } }, doctypes: {} });
	store.set(`fw:meta:en:${parentMeta.name}`, JSON.stringify({ version: "v1", docs: [parentMeta, childMeta] }));
	await getMeta(parentMeta.name);
	assert.ok(cachedMeta(childMeta.name));
}

test("child tables: add_row, remove_row and child field events with frm, cdt, cdn", async () => {
	await loadMetas();
	clearHandlers();
	const seen = [];
	on(childMeta.name, {
		thresholds_add: (frm, cdt, cdn) => seen.push(["add", cdt, locals[cdt][cdn].min_score]),
		min_score: (frm, cdt, cdn) => seen.push(["min_score", cdn === frm.doc.thresholds[0].name, locals[cdt][cdn].min_score]),
		before_thresholds_remove: (frm, cdt, cdn) => seen.push(["before remove", frm.doc.thresholds.length]),
	});
	on(parentMeta.name, { thresholds_remove: (frm) => seen.push(["removed", frm.doc.thresholds.length]) });
	const frm = new FrappeForm(parentMeta, { doctype: parentMeta.name, name: "Scoring Settings", docstatus: 0, modified: "x",
		thresholds: [{ name: "row-1", level: "Low", min_score: 0, idx: 1 }] });
	assert.equal(locals[childMeta.name]["row-1"].doctype, childMeta.name, "loaded rows are in locals");
	const row = await frm.add_row("thresholds", { level: "High" });
	assert.deepEqual(seen, [["add", childMeta.name, 35]]);
	assert.deepEqual([row.parent, row.parentfield, row.parenttype, row.idx, row.__islocal], ["Scoring Settings", "thresholds", parentMeta.name, 2, 1]);
	assert.equal(frm.is_dirty(), true);
	const model = makeModel({ db: makeDb(async () => ({})), getMeta, cachedMeta, currentForm: () => frm });
	await model.set_value(childMeta.name, "row-1", "min_score", 40);
	assert.deepEqual(seen.at(-1), ["min_score", true, 40]);
	assert.equal(frm.doc.thresholds[0].min_score, 40);
	await model.set_value(childMeta.name, "row-1", "min_score", 40); // unchanged: no event
	assert.equal(seen.length, 2);
	assert.equal(await model.get_value(childMeta.name, "row-1", "level"), "Low");
	await frm.remove_row("thresholds", "row-1");
	assert.deepEqual(seen.slice(2), [["before remove", 2], ["removed", 1]]);
	assert.deepEqual(frm.doc.thresholds.map((r) => r.idx), [1]);
	assert.equal(locals[childMeta.name]["row-1"], undefined);
	const plain = frm.add_child("thresholds");
	assert.equal(seen.length, 4, "frm.add_child fires no event (as Frappe's)");
	assert.equal(plain.min_score, 35);
	frm.clear_table("thresholds");
	assert.deepEqual(frm.doc.thresholds, []);
	assert.throws(() => frm.add_child("title"), /not a table/);
});

test("frappe.model on the open form fires its events; other documents change in locals", async () => {
	await loadMetas();
	clearHandlers();
	const seen = [];
	on(parentMeta.name, { title: (frm) => seen.push(frm.doc.title) });
	const frm = new FrappeForm(parentMeta, { doctype: parentMeta.name, name: "Scoring Settings", docstatus: 0, modified: "x" });
	const model = makeModel({ db: makeDb(async () => ({ message: { status: "Active" } })), getMeta, cachedMeta, currentForm: () => frm });
	await model.set_value(parentMeta.name, "Scoring Settings", "title", "T1");
	assert.deepEqual(seen, ["T1"]);
	locals.Employee = { "HR-EMP-1": { doctype: "Employee", name: "HR-EMP-1", status: "Active" } };
	await model.set_value("Employee", "HR-EMP-1", { status: "Left" });
	assert.equal(locals.Employee["HR-EMP-1"].status, "Left");
	assert.equal(await model.get_value("Employee", "HR-EMP-2", "status"), "Active", "not in locals: the server");
	assert.equal(model.is_submittable(parentMeta.name), true);
	const row = model.add_child(frm.doc, childMeta.name, "thresholds");
	assert.equal(frm.doc.thresholds[0], row);
	let loaded = false;
	await model.with_doctype(parentMeta.name, () => (loaded = true));
	assert.ok(loaded);
});

test("savesubmit and savecancel hand the action to the view (which runs the events), then the callback", async () => {
	await loadMetas();
	const asked = [];
	const frm = new FrappeForm(parentMeta, { doctype: parentMeta.name, name: "S-1", docstatus: 0, modified: "x" }, {
		onSave: async (form, action) => {
			asked.push(action);
			return action === "Submit";
		},
	});
	let answered = null;
	assert.equal(await frm._viewAction("Submit", (r) => (answered = r.message.name)), true);
	assert.equal(answered, "S-1");
	answered = null;
	assert.equal(await frm._viewAction("Cancel", (r) => (answered = r)), false);
	assert.equal(answered, null, "no callback when it failed");
	assert.deepEqual(asked, ["Submit", "Cancel"]);
	const failing = new FrappeForm(parentMeta, { doctype: parentMeta.name, name: "S-2", docstatus: 0, modified: "x" }, {
		onSave: async () => {
			throw new Error("refused");
		},
	});
	let seenError = null;
	await assert.rejects(failing._viewAction("Submit", null, (e) => (seenError = e.message)), /refused/);
	assert.equal(seenError, "refused");
});

test("set_query on a child table's column; grid.get_field(...).get_query", async () => {
	await loadMetas();
	const frm = new FrappeForm(parentMeta, { doctype: parentMeta.name, name: "S-2", docstatus: 0, modified: "x" });
	frm.set_query("employee", "thresholds", (doc, cdt, cdn) => ({ filters: { company: doc.title, row: cdn } }));
	frm.doc.title = "C1";
	assert.deepEqual(frm.link_query("employee", childMeta.name, "r-1", "thresholds"), { filters: { company: "C1", row: "r-1" } });
	assert.deepEqual(frm.link_query("employee"), {}, "the parent has no such query");
	frm.fields_dict.thresholds.grid.get_field("level").get_query = () => ({ filters: { x: 1 } });
	assert.deepEqual(frm.link_query("level", childMeta.name, "r-1", "thresholds"), { filters: { x: 1 } });
	frm.set_df_property("min_score", "read_only", 1, "r-1", "thresholds");
	assert.equal(frm.get_child_docfield("thresholds", "min_score").read_only, 1);
	assert.equal(frm.get_docfield("min_score"), null, "not a parent field");
	assert.equal(frm.has_perm("submit"), true);
});

test("frm.page's toolbar pieces, and add_custom_button's chainable answer", async () => {
	await loadMetas();
	const frm = new FrappeForm(parentMeta, { doctype: parentMeta.name, name: "S-3", docstatus: 0, modified: "x" });
	frm.add_custom_button("Make", () => "made").addClass("btn-primary").css({ color: "red" });
	assert.deepEqual(frm.custom_buttons.map((b) => [b.label, b.type]), [["Make", "primary"]]);
	frm.page.set_primary_action("Go", () => "went");
	assert.deepEqual(frm.custom_buttons.map((b) => [b.label, b.type]), [["Go", "primary"]], "one primary action");
	frm.page.add_menu_item("Export", () => {});
	frm.page.add_action_item("Escalate", () => {});
	frm.page.add_inner_button("Inner", () => {}, "Tools");
	assert.deepEqual(frm.custom_buttons.map((b) => [b.label, b.group]), [["Go", null], ["Inner", "Tools"]]);
	assert.deepEqual([frm.menu_items.map((i) => i.label), frm.action_items.map((i) => i.label)], [["Export"], ["Escalate"]],
		"in the form's own Menu and Actions menus");
	frm.add_custom_button("Gone", () => {}).hide();
	assert.equal(frm.custom_buttons.some((b) => b.label === "Gone"), false);
	frm.page.clear_primary_action();
	assert.deepEqual(frm.custom_buttons.map((b) => b.label), ["Inner"]);
	await frm.refresh();
	assert.deepEqual([frm.custom_buttons, frm.menu_items, frm.action_items], [[], [], []], "cleared on refresh");
});

test("new child rows get random names, as the server gives them", async () => {
	await loadMetas();
	const frm = new FrappeForm(parentMeta, { doctype: parentMeta.name, name: "S-4", docstatus: 0, modified: "x" });
	const a = frm.add_child("thresholds");
	const b = frm.add_child("thresholds");
	assert.match(a.name, /^[0-9a-f]{10}$/);
	assert.notEqual(a.name, b.name);
});

test("set_route to a Single's form opens it, not a new document", async () => {
	const { singleFormRoute } = await import("../../../server/desk/static/js/frappe/index.js");
	const info = (doctype) => ({ "Scoring Settings": { issingle: 1 }, Employee: { issingle: 0 } })[doctype] || null;
	assert.deepEqual(singleFormRoute(["Form", "Scoring Settings"], info), ["/app/scoring-settings"]);
	assert.deepEqual(singleFormRoute([["Form", "Scoring Settings", "Scoring Settings"]], info), ["/app/scoring-settings"]);
	assert.deepEqual(singleFormRoute(["Form", "Employee"], info), ["Form", "Employee"]);
	assert.deepEqual(singleFormRoute(["List", "Scoring Settings"], info), ["List", "Scoring Settings"]);
});

test("disable_form makes every field read-only and stops Save until enable_form", async () => {
	await loadMetas();
	const frm = new FrappeForm(parentMeta, { doctype: parentMeta.name, name: "S-5", docstatus: 0, modified: "x" });
	const df = frm.get_docfield("title");
	assert.equal(frm.is_field_editable(df), true);
	frm.disable_form();
	assert.equal(frm.is_field_editable(df), false);
	assert.equal(frm.save_disabled, true);
	frm.enable_form();
	assert.equal(frm.is_field_editable(df), true);
	assert.equal(frm.save_disabled, false);
});

test("the installed namespace: defaults, get_indicator by the list's rule, the globals", async () => {
	const { installFrappe } = await import("../../../server/desk/static/js/frappe/index.js");
	await loadMetas();
	loadBoot({ user: "a@example.com", roles: [], sysdefaults: { date_format: "dd.mm.yyyy", currency: "EUR" }, user_defaults: { company: "C1" },
		meta_version: "v1", meta_modified: {}, doctypes: { Employee: { is_submittable: 0 } } });
	const target = {};
	const frappe = installFrappe(target);
	assert.equal(frappe.defaults.get_user_default("Company"), "C1");
	assert.equal(frappe.defaults.get_default("currency"), "EUR");
	assert.equal(frappe.defaults.get_global_default("date_format"), "dd.mm.yyyy");
	assert.deepEqual(frappe.defaults.get_user_defaults("nothing"), []);
	assert.deepEqual(frappe.get_indicator({ doctype: parentMeta.name, docstatus: 1 }), ["Submitted", "blue", "docstatus,=,1"]);
	assert.deepEqual(frappe.get_indicator({ doctype: parentMeta.name, docstatus: 0, __unsaved: 1 }), ["Not Saved", "orange", null]);
	assert.equal(typeof target.flt, "function");
	assert.equal(typeof frappe.ui.Dialog, "function");
	assert.equal(typeof target.fw.ui.open_list, "function");
});

test("the namespace is an adapter: cur_frm, frappe.validated and the scripts' settings are the Desk's own", async () => {
	const { installFrappe } = await import("../../../server/desk/static/js/frappe/index.js");
	const { createForm } = await import("../../../server/desk/static/js/form/create.js");
	const { currentForm, leaveForm, setCurrentForm } = await import("../../../server/desk/static/js/form/current.js");
	const { isValidated, setValidated } = await import("../../../server/desk/static/js/form/validation.js");
	const { listSettingsOf, reportSettingsOf } = await import("../../../server/desk/static/js/script_settings.js");
	await loadMetas();
	const target = { frappe: { listview_settings: { Early: { filters: [["status", "=", "Open"]] } } } };
	const frappe = installFrappe(target);
	const frm = createForm(parentMeta, { doctype: parentMeta.name, name: "S-6", docstatus: 0, modified: "x" });
	assert.ok(frm instanceof FrappeForm, "the form view builds Frappe's frm once the namespace is installed");
	assert.equal(target.cur_frm, null);
	setCurrentForm(frm);
	assert.equal(target.cur_frm, frm);
	leaveForm(frm);
	assert.equal(target.cur_frm, null);
	target.cur_frm = frm; // a script may still assign it
	assert.equal(currentForm(), frm);
	setCurrentForm(null);
	setValidated(true);
	frappe.validated = false;
	assert.equal(isValidated(), false);
	assert.equal(frappe.validated, false);
	setValidated(true);
	assert.equal(frappe.validated, true);
	frappe.listview_settings["Scoring Settings"] = { hide_name_column: true };
	assert.deepEqual(listSettingsOf("Scoring Settings"), { hide_name_column: true });
	assert.deepEqual(listSettingsOf("Early"), { filters: [["status", "=", "Open"]] }, "settings written before the install are kept");
	frappe.query_reports = { "Employee Scores": { filters: [] } };
	assert.deepEqual(reportSettingsOf("Employee Scores"), { filters: [] });
	assert.equal(frappe.query_reports["Employee Scores"], reportSettingsOf("Employee Scores"));
});
