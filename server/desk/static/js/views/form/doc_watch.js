// Someone else changes the open document (desk.md §4 and §7, realtime `doc_update`): an unchanged
// form reloads by itself; a changed one keeps what was typed and says that the document was
// modified after it was opened, with Reload. A deleted document says so. The form's own saves come
// back as `doc_update` too: a `modified` not newer than the form's is ignored.
import { __ } from "../../i18n.js";
import { html, useEffect, useState } from "../../lib/html.js";
import * as realtime from "../../realtime.js";
import { showError } from "../../ui/messages.js";

/** Whether a `doc_update` (its `modified`) is news for a form holding `doc`. Pure. */
export function isNewer(update, doc) {
	if (!update || !doc) return false;
	if (Number(update.deleted)) return true;
	if (!update.modified || !doc.modified) return Boolean(update.modified);
	return String(update.modified) > String(doc.modified);
}

const RETRY_MS = 250;

export function useDocWatch(frm, reload) {
	const [notice, setNotice] = useState(null); // null | "modified" | "deleted"
	const saved = !frm.is_new() && !frm.meta.issingle;
	const name = frm.docname;

	useEffect(() => {
		setNotice(null);
		if (!saved) return undefined;
		const stop = realtime.watchDoc(frm.doctype, name);
		let timer = null;
		const judge = (update) => {
			if (frm.docname !== name) return;
			// the form's own save may still be answering: judge once it has the saved `modified`
			if (frm.saving) {
				timer = setTimeout(() => judge(update), RETRY_MS);
				return;
			}
			if (!isNewer(update, frm.doc)) return;
			if (Number(update.deleted)) setNotice("deleted");
			else if (frm.is_dirty()) setNotice("modified");
			else reload().catch((error) => showError(error));
		};
		const onUpdate = (update) => {
			if (update && update.doctype === frm.doctype && update.name === name) judge(update);
		};
		const stopListening = realtime.on("doc_update", onUpdate);
		return () => {
			clearTimeout(timer);
			if (typeof stopListening === "function") stopListening();
			else realtime.off("doc_update", onUpdate);
			stop();
		};
	}, [frm, name, saved]);

	// the notice goes once the form holds the newest document (after Reload or a save)
	useEffect(() => {
		if (notice === "modified" && !frm.is_dirty()) setNotice(null);
	});

	if (!notice) return { notice: null };
	const text =
		notice === "deleted"
			? __("This document was deleted by someone else.")
			: __("This document was modified after you opened it.");
	return {
		notice: html`<div class="form-notice" role="alert">
			<span>${text}</span>
			${notice === "modified"
				? html`<button type="button" class="btn btn-default" onClick=${() => {
						setNotice(null);
						reload().catch((error) => showError(error));
					}}>${__("Reload")}</button>`
				: null}
		</div>`,
	};
}
