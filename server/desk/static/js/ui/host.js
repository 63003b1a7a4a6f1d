// Renders the open dialogs and the toasts (ui/layers.js) above the page. Escape closes the top
// dialog wherever the focus is (the dialog handles it itself when the focus is inside it).
import { html, useEffect, useSubscription } from "../lib/html.js";
import { Dialog } from "./dialog.js";
import { closeDialog, dialogs, onLayersChange, toasts, topDialog } from "./layers.js";
import { Toasts } from "./toast.js";

function onKeyDown(event) {
	const top = topDialog();
	if (event.key !== "Escape" || event.defaultPrevented || !top || top.dismissible === false) return;
	if (event.target && event.target.closest && event.target.closest('[role="dialog"], [role="alertdialog"]')) return;
	closeDialog(top.id, "escape");
}

export function LayerHost() {
	useSubscription(onLayersChange);
	useEffect(() => {
		document.addEventListener("keydown", onKeyDown);
		return () => document.removeEventListener("keydown", onKeyDown);
	}, []);
	return html`<div class="layers">
		${dialogs.map((entry) => html`<${Dialog} key=${entry.id} entry=${entry} />`)}
		<${Toasts} items=${toasts} />
	</div>`;
}
