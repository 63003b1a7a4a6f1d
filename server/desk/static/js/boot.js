// The boot payload the server renders into the shell (`<script type="application/json" id="fw-boot">`):
// the user, roles, rights per doctype, sidebar, system defaults, the Desk's translated strings and
// asset URLs (engine/desk/boot.py documents its shape). Read once by main.js; other modules import
// `boot` and the helpers below.
export const boot = {
	user: "Guest",
	roles: [],
	rights: {},
	doctypes: {},
	sidebar: [],
	sysdefaults: {},
	messages: {},
	meta_modified: {},
};

/** Fill `boot` from the shell's JSON block (or from `data`, in tests). */
export function loadBoot(data) {
	const source = data === undefined ? JSON.parse(document.getElementById("fw-boot").textContent) : data;
	Object.assign(boot, source);
	slugs = null;
	return boot;
}

/** A doctype's route segment: "Warehouse Violation" → "warehouse-violation" (Frappe's rule). */
export function slug(doctype) {
	return String(doctype).toLowerCase().replace(/ /g, "-");
}

let slugs = null;

/** The doctype a route segment names (any doctype that is not a child table), or null. */
export function doctypeForSlug(segment) {
	if (!slugs) {
		slugs = new Map(Object.keys(boot.doctypes || {}).map((name) => [slug(name), name]));
	}
	return slugs.get(String(segment).toLowerCase()) || null;
}

/** Whether the user holds `right` ("read", "write", "create", ...) on `doctype` (perhaps only on
 * their own documents: see `ownOnly`). */
export function hasRight(doctype, right = "read") {
	const rights = (boot.rights || {})[doctype];
	return Boolean(rights && rights[right]);
}

/** Whether `right` on `doctype` is limited to the user's own documents (`if_owner`). */
export function ownOnly(doctype, right) {
	const rights = (boot.rights || {})[doctype];
	return Boolean(rights && (rights.if_owner || []).includes(right));
}

export function hasRole(role) {
	return (boot.roles || []).includes(role);
}

export function doctypeInfo(doctype) {
	return (boot.doctypes || {})[doctype] || null;
}
