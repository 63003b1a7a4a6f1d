// Deleted Document's form: "Restore" puts the deleted document back (the server refuses, with its
// reason, when the name is taken or it was restored already); a restored one offers "Open".
frappe.ui.form.on("Deleted Document", {
	refresh(frm) {
		if (frm.doc.restored) {
			if (frm.doc.new_name) {
				frm.add_custom_button(__("Open"), () => frappe.set_route("Form", frm.doc.deleted_doctype, frm.doc.new_name));
			}
			return;
		}
		frm.add_custom_button(__("Restore"), () => {
			// a refusal (name taken, restored already) is shown by frappe.call itself, once
			frappe
				.call({
					method: "frappe.core.doctype.deleted_document.deleted_document.restore",
					args: { name: frm.doc.name },
					callback: () => frm.reload_doc(),
				})
				.catch(() => {});
		});
	},
});
