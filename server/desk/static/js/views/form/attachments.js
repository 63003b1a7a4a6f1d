// The sidebar's attachments (desk.md §4): the document's Files (`docinfo.attachments`) as links that
// open them; for who may change the document, upload (`upload_file`, with a progress bar; a file
// over the server's limit is refused before it is sent) and Remove (the File is deleted).
import { deleteDoc } from "../../api.js";
import { safeFileUrl } from "../../controls/attach.js";
import { __ } from "../../i18n.js";
import { html } from "../../lib/html.js";
import { confirmDialog } from "../../ui/confirm.js";
import { showError } from "../../ui/messages.js";
import { UploadProgress, useFileUpload } from "../../ui/upload_progress.js";
import { refreshDocinfo } from "./docinfo.js";

export function Attachments({ frm, canChange }) {
	const [uploading, sendFile] = useFileUpload();
	const files = (frm.docinfo && frm.docinfo.attachments) || [];
	const upload = (event) => sendFile(event, { doctype: frm.doctype, docname: frm.docname }, () => refreshDocinfo(frm));
	async function remove(file) {
		if (!(await confirmDialog(__("Remove the attachment {0}?", [file.file_name || file.name]), { title: __("Remove") }))) return;
		try {
			await deleteDoc("File", file.name);
			await refreshDocinfo(frm);
		} catch (error) {
			showError(error);
		}
	}
	return html`<section class="sidebar-part" aria-labelledby="form-attachments">
		<h2 class="sidebar-head" id="form-attachments">${__("Attachments")}</h2>
		${files.length
			? html`<ul class="sidebar-list" aria-labelledby="form-attachments">
					${files.map(
						(file) => html`<li key=${file.name}>
							${safeFileUrl(file.file_url)
								? html`<a href=${file.file_url} target="_blank" rel="noopener noreferrer">${file.file_name || file.file_url}</a>`
								: html`<span>${file.file_name || file.file_url}</span>`}
							${canChange
								? html`<button type="button" class="btn-icon" onClick=${() => remove(file)}>
										×<span class="sr-only"> ${__("Remove {0}", [file.file_name || file.name])}</span></button>`
								: null}
						</li>`,
					)}
				</ul>`
			: html`<p class="sidebar-empty">${__("No attachments")}</p>`}
		${uploading ? html`<${UploadProgress} name=${uploading.name} percent=${uploading.percent} />` : null}
		${canChange
			? html`<label class="sidebar-upload">${__("Attach a file")}
					<input type="file" disabled=${Boolean(uploading)} onChange=${upload} /></label>`
			: null}
	</section>`;
}
