// Whether the scripts' `validate` and `before_save` let a save go on: save.js sets it before running
// them and stops when one set it to false. Frappe's scripts write `frappe.validated = false`; the
// frappe adapter exposes this value under that name.
let validated = true;

export function setValidated(value) {
	validated = value;
}

/** The value as a script left it (Frappe's `frappe.validated`). */
export function validatedValue() {
	return validated;
}

/** Only `false` stops (as Frappe's check). */
export function isValidated() {
	return validated !== false;
}
