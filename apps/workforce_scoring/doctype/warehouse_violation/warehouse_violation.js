// Form script of Warehouse Violation (served at /assets/workforce_scoring/doctype/warehouse_violation/
// warehouse_violation.js after `fw build`). It is written against fw's small form API, documented in
// apps/workforce_scoring/README.md. The colour rules are plain functions, exported for `node --test`.
(function (root, factory) {
	"use strict";
	const api = factory(root);
	if (typeof module === "object" && module.exports) {
		module.exports = api; // node: tests require() this file
	}
	if (root.fw && root.fw.ui && typeof root.fw.ui.form === "function") {
		root.fw.ui.form("Warehouse Violation", api.handlers); // the browser
	}
})(typeof globalThis !== "undefined" ? globalThis : this, function (root) {
	"use strict";

	const STATE_COLOURS = Object.freeze({
		Pending: "orange",
		Confirmed: "green",
		Appealed: "blue",
		Waived: "red",
	});
	const PENALTY_RED = 8;
	const PENALTY_ORANGE = 5;

	/** The indicator colour of a workflow state: gray for any state without one of its own. */
	function stateColour(state) {
		return Object.prototype.hasOwnProperty.call(STATE_COLOURS, state) ? STATE_COLOURS[state] : "gray";
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

	const handlers = {
		refresh(frm) {
			const state = frm.doc.workflow_state;
			if (state) {
				frm.set_indicator(__(state), stateColour(state));
			}
			const points = Number(frm.doc.penalty_points) || 0;
			frm.dashboard.add_indicator(__("Penalty Points: {0}", [points]), penaltyColour(points));
			if (showsCustomButtons(frm)) {
				frm.add_custom_button(__("Employee Scores"), () =>
					root.fw.ui.open_list("Employee Score", { employee: frm.doc.employee }),
				);
				frm.add_custom_button(__("Other Violations"), () =>
					root.fw.ui.open_list("Warehouse Violation", { employee: frm.doc.employee }),
				);
			}
		},
	};

	return { STATE_COLOURS, stateColour, penaltyColour, showsCustomButtons, handlers };
});
