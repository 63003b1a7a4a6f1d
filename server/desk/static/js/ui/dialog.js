// A modal dialog: role="dialog", aria-modal, labelled by its title; Escape or the close button
// closes it; Tab stays inside it; focus moves into it when it opens and back when it closes.
import { __ } from "../i18n.js";
import { html, useId, useLayoutEffect, useRef } from "../lib/html.js";
import { colourName } from "../indicators.js";
import { closeDialog, topDialog } from "./layers.js";

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function Dialog({ entry }) {
	const titleId = useId();
	const ref = useRef(null);
	// a layout effect: focus is inside before the dialog is painted, so a key pressed at once lands in it
	useLayoutEffect(() => {
		const node = ref.current;
		if (!node) return;
		// the first control of the body, else the first button of the footer (a confirm's "No"), else the dialog
		const within = (selector) => {
			const part = node.querySelector(selector);
			return part ? part.querySelector(FOCUSABLE) : null;
		};
		const target = node.querySelector("[autofocus]") || within(".modal-body") || within(".modal-footer") || node;
		target.focus();
	}, [entry.id]);

	function onKeyDown(event) {
		if (event.key === "Escape" && topDialog() === entry && entry.dismissible !== false) {
			event.stopPropagation();
			closeDialog(entry.id, "escape");
		} else if (event.key === "Tab") {
			const items = [...ref.current.querySelectorAll(FOCUSABLE)].filter((el) => el.offsetParent !== null);
			if (!items.length) return;
			const first = items[0];
			const last = items[items.length - 1];
			if (event.shiftKey && document.activeElement === first) {
				event.preventDefault();
				last.focus();
			} else if (!event.shiftKey && document.activeElement === last) {
				event.preventDefault();
				first.focus();
			}
		}
	}

	const body = typeof entry.body === "function" ? entry.body(entry.handle) : entry.body;
	const message = entry.message !== undefined ? html`<p class="modal-message">${String(entry.message)}</p>` : null;
	return html`<div class="modal-backdrop" onMouseDown=${(e) => e.target === e.currentTarget && entry.dismissible !== false && closeDialog(entry.id, "backdrop")}>
		<div ref=${ref} class=${`modal ${entry.size || ""}`} role=${entry.role || "dialog"} aria-modal="true" aria-labelledby=${titleId} tabindex="-1" onKeyDown=${onKeyDown}>
			<header class="modal-header">
				${entry.indicator ? html`<span class=${`indicator-dot ${colourName(entry.indicator)}`} aria-hidden="true"></span>` : null}
				<h2 id=${titleId} class="modal-title">${entry.title || __("Message")}</h2>
				${entry.dismissible === false ? null : html`<button type="button" class="btn-icon modal-close" aria-label=${__("Close")} onClick=${() => closeDialog(entry.id, "close")}>×</button>`}
			</header>
			<div class="modal-body">${message}${body}</div>
			${entry.actions && entry.actions.length
				? html`<footer class="modal-footer">
						${entry.actions.map(
							(action) => html`<button type="button" class=${`btn ${action.primary ? "btn-primary" : "btn-default"}`}
								disabled=${action.disabled} onClick=${() => action.onClick && action.onClick(entry.handle)}>${action.label}</button>`,
						)}
					</footer>`
				: null}
		</div>
	</div>`;
}
