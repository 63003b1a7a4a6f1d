// Renders the open dialogs and the toasts (ui/layers.js) above the page.
import { html, useSubscription } from "../lib/html.js";
import { Dialog } from "./dialog.js";
import { dialogs, onLayersChange, toasts } from "./layers.js";
import { Toasts } from "./toast.js";

export function LayerHost() {
	useSubscription(onLayersChange);
	return html`<div class="layers">
		${dialogs.map((entry) => html`<${Dialog} key=${entry.id} entry=${entry} />`)}
		<${Toasts} items=${toasts} />
	</div>`;
}
