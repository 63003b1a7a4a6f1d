// A form's workflow (desk.md §4): the transitions the user may take from the document's state now,
// and taking one through the public API (`fw.model.workflow.apply_workflow`, Frappe's path). The
// transitions come from the meta's `__workflow` (states, transitions, the role allowed each) so
// opening a form costs no request; a workflow whose transitions have conditions (Python expressions
// only the server evaluates) asks `fw.model.workflow.get_transitions` instead. The server checks
// every action again: what is offered here is a convenience, never the rule.
import { call } from "../../api.js";

/** The active workflow of a meta ({field, states, transitions}), or null. */
export function workflowOf(meta) {
	const workflow = meta && meta.__workflow;
	return workflow && workflow.field && Array.isArray(workflow.transitions) ? workflow : null;
}

/** The state of `doc` (the first state for a document not in one yet). */
export function currentState(workflow, doc) {
	return (doc && doc[workflow.field]) || (workflow.states && workflow.states[0] ? workflow.states[0].state : null);
}

/**
 * The transitions `user` with `roles` may take from `doc`'s state: [{action, next_state, ...}].
 * Administrator may take them all, as on the server; self approval is left out where refused. Pure.
 */
export function allowedTransitions(workflow, doc, { roles = [], user = null } = {}) {
	if (!workflow || !doc || doc.__islocal) return [];
	const state = currentState(workflow, doc);
	const held = new Set(roles);
	const admin = user === "Administrator";
	return workflow.transitions.filter(
		(t) =>
			t.state === state &&
			(admin || held.has(t.allowed)) &&
			(admin || Number(t.allow_self_approval ?? 1) || doc.owner !== user),
	);
}

/** Whether the transitions need the server's judgement (a transition of this state has a condition). */
export function needsServer(workflow, doc) {
	const state = currentState(workflow, doc);
	return workflow.transitions.some((t) => t.state === state && t.condition);
}

/** The transitions from the server (`get_transitions`), for workflows with conditions. */
export async function fetchTransitions(doc) {
	const body = await call("fw.model.workflow.get_transitions", { doc: { doctype: doc.doctype, name: doc.name } });
	return Array.isArray(body && body.message) ? body.message : [];
}

/** Take `action` (the server takes the document as stored); resolves to it as saved by the transition. */
export async function applyWorkflow(doc, action) {
	const body = await call("fw.model.workflow.apply_workflow", { doc: { doctype: doc.doctype, name: doc.name }, action });
	return body.message;
}
