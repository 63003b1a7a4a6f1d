// Form script of Warehouse Violation, written against Frappe's client API (`frappe.ui.form.on`,
// `frm.page.set_indicator`, `frm.dashboard.add_indicator`, `frm.add_custom_button`,
// `frappe.set_route`, `frappe.get_indicator`), so it runs unchanged in fw's Desk and in Frappe's.
// The state pill takes its colour from `frappe.get_indicator`: the Desk's one rule for lists and
// forms (the Workflow State's style: Pending orange, Confirmed green, Appealed blue, Waived red,
// any other gray). The confirm and cancel alerts come from the server (on_submit, on_cancel).
// The rules are plain functions, exported for `node --test` (tests/apps/js/).
(function (root, factory) {
	"use strict";
	const api = factory(root);
	if (typeof module === "object" && module.exports) {
		module.exports = api; // node: tests require() this file
	}
	const frappe = root.frappe;
	if (frappe && frappe.ui && frappe.ui.form && typeof frappe.ui.form.on === "function") {
		frappe.ui.form.on("Warehouse Violation", api.handlers); // the browser
	}
})(typeof globalThis !== "undefined" ? globalThis : this, function (root) {
	"use strict";

	const PENALTY_RED = 8;
	const PENALTY_ORANGE = 5;

	/** The colour of a workflow state by the Desk's rule (`frappe.get_indicator`); gray without one. */
	function stateColour(state, doctype) {
		const frappe = root.frappe;
		if (!state || !frappe || typeof frappe.get_indicator !== "function") return "gray";
		// the state alone: an unsaved change must not turn the state's colour into "Not Saved"
		const indicator = frappe.get_indicator({ doctype: doctype, workflow_state: state, docstatus: 0 }, doctype);
		return (indicator && indicator[1]) || "gray";
	}

	/** The dashboard colour of a penalty: at least 8 red, at least 5 orange, else blue. */
	function penaltyColour(points) {
		const value = Number(points) || 0;
		if (value >= PENALTY_RED) return "red";
		if (value >= PENALTY_ORANGE) return "orange";
		return "blue";
	}

	/** Custom buttons act on a stored draft only: never on an unsaved form or a submitted document. */
	function showsCustomButtons(frm) {
		return !frm.is_new() && Number(frm.doc.docstatus || 0) === 0;
	}

	// `__` translates UI text where the desk provides it; elsewhere it only fills {0}-style placeholders
	function __(text, args) {
		if (typeof root.__ === "function") return root.__(text, args);
		return String(text).replace(/\{(\d+)\}/g, (match, i) => (args && i in args ? args[i] : match));
	}

	function openList(doctype, filters) {
		return root.frappe.set_route("List", doctype, filters);
	}

	const handlers = {
		refresh(frm) {
			const state = frm.doc.workflow_state;
			if (state) {
				frm.page.set_indicator(__(state), stateColour(state, frm.doctype || "Warehouse Violation"));
			}
			const points = Number(frm.doc.penalty_points) || 0;
			frm.dashboard.add_indicator(__("Penalty Points: {0}", [points]), penaltyColour(points));
			if (showsCustomButtons(frm)) {
				frm.add_custom_button(__("Employee Scores"), () => openList("Employee Score", { employee: frm.doc.employee }));
				frm.add_custom_button(__("Other Violations"), () => openList("Warehouse Violation", { employee: frm.doc.employee }));
			}
		},
	};

	return { stateColour, penaltyColour, showsCustomButtons, handlers };
});
