// An upload's progress bar (`role="progressbar"`, named "Uploading <file>", with its percent), shown
// by the sidebar's attachments and the Attach control while `upload.js` sends a file, and the hook
// both use to run an upload from a file input.
import { __ } from "../i18n.js";
import { html, useState } from "../lib/html.js";
import { uploadFile } from "../upload.js";
import { showError } from "./messages.js";

/** `[uploading, upload]`: `upload(event, options, done)` sends the file chosen in the input of
 * `event` through `uploadFile(file, options)`, then awaits `done(record)`; `uploading` is
 * `{name, percent}` meanwhile (for UploadProgress), else null. A failure is shown; the input is
 * cleared either way, so the same file can be chosen again. */
export function useFileUpload() {
	const [uploading, setUploading] = useState(null);
	async function upload(event, options, done) {
		const input = event.currentTarget;
		const file = input.files && input.files[0];
		if (!file) return;
		setUploading({ name: file.name, percent: 0 });
		try {
			const onProgress = (percent) => setUploading({ name: file.name, percent });
			await done(await uploadFile(file, { ...options, onProgress }));
		} catch (error) {
			showError(error);
		} finally {
			setUploading(null);
			input.value = "";
		}
	}
	return [uploading, upload];
}

export function UploadProgress({ name, percent }) {
	const value = Math.min(Math.max(Math.round(Number(percent) || 0), 0), 100);
	const label = __("Uploading {0}", [name]);
	return html`<div class="upload-progress">
		<div class="progress-track" role="progressbar" aria-label=${label} aria-valuemin="0" aria-valuemax="100"
			aria-valuenow=${String(value)} aria-valuetext=${`${value}%`}>
			<div class="progress-fill" style=${{ width: `${value}%` }}></div>
		</div>
		<span class="upload-percent">${label} · ${value}%</span>
	</div>`;
}
