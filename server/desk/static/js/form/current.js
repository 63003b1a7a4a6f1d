// The open form: the one the form view shows. Frappe's scripts know it as `cur_frm` and reach its
// values through `frappe.model`; the frappe adapter exposes it under those names.
let current = null;

export function currentForm() {
	return current;
}

export function setCurrentForm(frm) {
	current = frm || null;
}

/** The view of `frm` goes away: no form is open, unless another one opened meanwhile. */
export function leaveForm(frm) {
	if (current === frm) current = null;
}
