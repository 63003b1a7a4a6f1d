// Toasts: short notes in a corner. Errors use role="alert" (read at once), others role="status".
import { __ } from "../i18n.js";
import { colourName } from "../indicators.js";
import { html } from "../lib/html.js";
import { dismissToast } from "./layers.js";

export function Toasts({ items }) {
	return html`<div class="toasts">
		${items.map(
			(toast) => html`<div key=${toast.id} class=${`toast ${colourName(toast.indicator)}`} role=${toast.alert ? "alert" : "status"}>
				<span class="toast-message">${toast.message}</span>
				<button type="button" class="btn-icon" aria-label=${__("Dismiss")} onClick=${() => dismissToast(toast.id)}>×</button>
			</div>`,
		)}
	</div>`;
}
