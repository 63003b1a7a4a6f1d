// What a form offers (server/desk/static/js/views/form/actions.js) and the workflow's transitions
// (views/form/workflow.js), judged from rights, docstatus and the workflow.
import assert from "node:assert/strict";
import test from "node:test";
import { offeredActions } from "../../../server/desk/static/js/views/form/actions.js";
import { allowedTransitions } from "../../../server/desk/static/js/views/form/workflow.js";
import { isNewer } from "../../../server/desk/static/js/views/form/doc_watch.js";

function fakeFrm({ meta = {}, doc = {}, perm = {}, dirty = false, isNew = false, canEdit = true } = {}) {
	return {
		meta: { name: "Score", fields: [], ...meta },
		doctype: "Score",
		doc: { docstatus: 0, ...doc },
		perm: [perm],
		save_disabled: false,
		is_new: () => isNew,
		is_dirty: () => dirty,
		can_edit: () => canEdit,
	};
}
const keys = (offered) => ({
	buttons: offered.buttons.map((b) => b.key),
	workflow: offered.workflow.map((w) => w.action),
	menu: offered.menu.map((m) => m.key),
});

test("a submittable doctype without a workflow: Submit, Cancel, Amend by rights and docstatus", () => {
	const meta = { is_submittable: 1 };
	const all = { write: 1, submit: 1, cancel: 1, amend: 1, delete: 1, create: 1 };
	assert.deepEqual(keys(offeredActions(fakeFrm({ meta, perm: all }), { canCreate: true })), {
		buttons: ["save", "submit"], workflow: [], menu: ["reload", "duplicate", "new", "delete"] });
	assert.deepEqual(keys(offeredActions(fakeFrm({ meta, perm: all, dirty: true }))).buttons, ["save"]); // save first
	assert.deepEqual(keys(offeredActions(fakeFrm({ meta, perm: { write: 1 } }))).buttons, ["save"]); // no submit right
	const submitted = fakeFrm({ meta, perm: all, doc: { docstatus: 1 } });
	assert.deepEqual(keys(offeredActions(submitted)), { buttons: ["cancel"], workflow: [], menu: ["reload"] });
	const cancelled = fakeFrm({ meta, perm: all, doc: { docstatus: 2 }, canEdit: false });
	assert.deepEqual(keys(offeredActions(cancelled)), { buttons: ["amend"], workflow: [], menu: ["reload", "delete"] });
	const readOnly = fakeFrm({ meta, perm: { read: 1 }, canEdit: false });
	assert.deepEqual(keys(offeredActions(readOnly)), { buttons: [], workflow: [], menu: ["reload"] });
	const fresh = fakeFrm({ meta, perm: all, isNew: true, dirty: true });
	assert.deepEqual(keys(offeredActions(fresh, { canCreate: true })), { buttons: ["save"], workflow: [], menu: [] });
});

const workflow = {
	field: "workflow_state",
	states: [{ state: "Draft" }, { state: "Pending" }, { state: "Confirmed" }],
	transitions: [
		{ state: "Draft", action: "Submit for Review", next_state: "Pending", allowed: "Warehouse Manager", allow_self_approval: 1 },
		{ state: "Pending", action: "Confirm", next_state: "Confirmed", allowed: "HR Reviewer", allow_self_approval: 0 },
		{ state: "Pending", action: "Reject", next_state: "Draft", allowed: "HR Reviewer", allow_self_approval: 1 },
	],
};

test("a workflow: its Actions instead of Submit and Cancel, only on a saved unchanged document", () => {
	const meta = { is_submittable: 1, __workflow: workflow };
	const perm = { write: 1, submit: 1, cancel: 1 };
	const transitions = [{ action: "Confirm" }, { action: "Reject" }];
	assert.deepEqual(keys(offeredActions(fakeFrm({ meta, perm }), { transitions })), {
		buttons: ["save"], workflow: ["Confirm", "Reject"], menu: ["reload"] });
	assert.deepEqual(keys(offeredActions(fakeFrm({ meta, perm, dirty: true }), { transitions })).workflow, []);
	assert.deepEqual(keys(offeredActions(fakeFrm({ meta, perm, doc: { docstatus: 1 } }), { transitions })).buttons, []);
});

test("the transitions a user may take from the document's state", () => {
	const pending = { name: "WV-1", workflow_state: "Pending", owner: "hr@x" };
	const actions = (doc, roles, user) => allowedTransitions(workflow, doc, { roles, user }).map((t) => t.action);
	assert.deepEqual(actions(pending, ["HR Reviewer"], "other@x"), ["Confirm", "Reject"]);
	assert.deepEqual(actions(pending, ["HR Reviewer"], "hr@x"), ["Reject"]); // no self approval
	assert.deepEqual(actions(pending, ["Warehouse Manager"], "wm@x"), []);
	assert.deepEqual(actions({ name: "WV-2", owner: "wm@x" }, ["Warehouse Manager"], "wm@x"), ["Submit for Review"]); // no state yet: the first
	assert.deepEqual(actions(pending, [], "Administrator"), ["Confirm", "Reject"]);
	assert.deepEqual(actions({ ...pending, __islocal: 1 }, ["HR Reviewer"], "x"), []);
});

test("doc_update: only news for the form", () => {
	const doc = { modified: "2024-05-02 10:00:00.000001" };
	assert.equal(isNewer({ modified: "2024-05-02 10:00:00.000001" }, doc), false); // the form's own save
	assert.equal(isNewer({ modified: "2024-05-02 09:59:59.000000" }, doc), false);
	assert.equal(isNewer({ modified: "2024-05-02 10:00:01.000000" }, doc), true);
	assert.equal(isNewer({ deleted: 1 }, doc), true);
});

test("Print is offered on a saved document with the print right, never on a new one", () => {
	const perm = { read: 1, print: 1, delete: 1 };
	assert.deepEqual(keys(offeredActions(fakeFrm({ perm }))).menu, ["reload", "print", "delete"]);
	assert.deepEqual(keys(offeredActions(fakeFrm({ perm: { read: 1 } }))).menu, ["reload"]);
	assert.deepEqual(keys(offeredActions(fakeFrm({ perm, isNew: true, dirty: true }))).menu, []);
});
