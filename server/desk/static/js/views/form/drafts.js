// New documents handed to the next new form of their doctype (Amend and Duplicate make one, then
// open /app/<doctype>/new, which takes it instead of a blank document). Kept in memory: a reload of
// /new starts blank, as in Frappe.
const drafts = new Map(); // doctype → doc

export function putDraft(doc) {
	drafts.set(doc.doctype, doc);
}

/** The draft waiting for a new form of `doctype` (taken once), or null. */
export function takeDraft(doctype) {
	const doc = drafts.get(doctype) || null;
	drafts.delete(doctype);
	return doc;
}
