// An upload's progress bar (`role="progressbar"`, named "Uploading <file>", with its percent), shown
// by the sidebar's attachments and the Attach control while `upload.js` sends a file.
import { __ } from "../i18n.js";
import { html } from "../lib/html.js";

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
