// Attach and Attach Image (desk.md §4): the file's link (an image shows too), a file input that
// uploads through `upload_file` (attached to the document once it is saved; with a progress bar; a
// file over the server's limit is refused before it is sent), and Remove. The field
// holds the file's URL; the form saves it as any other value.
import { __ } from "../i18n.js";
import { html } from "../lib/html.js";
import { UploadProgress, useFileUpload } from "../ui/upload_progress.js";
import { ControlFrame, describedBy } from "./base.js";
import { registerControl } from "./registry.js";

/** A file URL's name ("/files/report.pdf" → "report.pdf"). Pure. */
export function fileLabel(url) {
	const text = String(url || "");
	const last = text.split("?")[0].split("/").filter(Boolean).pop() || text;
	try {
		return decodeURIComponent(last);
	} catch {
		return last;
	}
}

/** Only this site's files or http(s) URLs are linked (never javascript: or data:). Pure. */
export function safeFileUrl(url) {
	const text = String(url || "");
	return /^\/(?!\/)/.test(text) || /^https?:\/\//i.test(text);
}

export function AttachControl(props) {
	const { frm, df, value, id, readOnly, error, onChange } = props;
	const [uploading, sendFile] = useFileUpload();
	const url = value ? String(value) : "";
	const isImage = df.fieldtype === "Attach Image";
	// attached to the document once it is saved; a new document's field just holds the URL
	const upload = (event) => sendFile(event, frm && !frm.is_new() ? { doctype: frm.doctype, docname: frm.docname } : {},
		(record) => onChange(record.file_url));

	return html`<${ControlFrame} ...${props}>
		<div class="attach-field">
			${url
				? safeFileUrl(url)
					? html`<a href=${url} target="_blank" rel="noopener noreferrer">${fileLabel(url)}</a>`
					: html`<span>${url}</span>`
				: html`<span class="control-static">${__("No file")}</span>`}
			${readOnly
				? null
				: html`<input type="file" id=${id} name=${df.fieldname} accept=${isImage ? "image/*" : undefined} disabled=${Boolean(uploading)}
						aria-describedby=${describedBy(id, df, error)} aria-invalid=${error ? "true" : undefined} onChange=${upload} />`}
			${url && !readOnly ? html`<button type="button" class="btn btn-default btn-small" onClick=${() => onChange(null)}>${__("Remove")}</button>` : null}
			${uploading ? html`<${UploadProgress} name=${uploading.name} percent=${uploading.percent} />` : null}
		</div>
		${isImage && url && safeFileUrl(url) ? html`<img class="attach-image" src=${url} alt=${fileLabel(url)} />` : null}
	</${ControlFrame}>`;
}

registerControl(["Attach", "Attach Image"], AttachControl);
