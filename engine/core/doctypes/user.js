// User's form: "User Permissions" opens the list of the records that restrict this user (business.md
// §1.1), filtered on them; a System Manager adds one from there (a user reads only their own).
frappe.ui.form.on("User", {
	refresh(frm) {
		if (frm.is_new()) return;
		frm.add_custom_button(__("User Permissions"), () => {
			frappe.route_options = { user: frm.doc.name };
			frappe.set_route("List", "User Permission");
		});
	},
});
