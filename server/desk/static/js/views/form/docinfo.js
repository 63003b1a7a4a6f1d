// The form's docinfo (Frappe's `get_docinfo`): loaded again after a save, an action, an attachment
// or a comment; the names of the users it mentions.
import { call } from "../../api.js";

/** Load the form's docinfo again. */
export async function refreshDocinfo(frm) {
	if (frm.is_new() || frm.meta.issingle) return;
	const body = await call("fw.desk.form.load.get_docinfo", { doctype: frm.doctype, name: frm.docname }, { httpMethod: "GET" });
	if (body && body.docinfo) {
		frm.docinfo = body.docinfo;
		frm.notify();
	}
}

/** A user's full name as the docinfo knows it (else the user's id). */
export function fullName(docinfo, user) {
	const info = docinfo && docinfo.user_info && docinfo.user_info[user];
	return (info && (info.fullname || info.full_name)) || user || "";
}
