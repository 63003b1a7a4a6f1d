// A menu button: a <button aria-haspopup="menu"> opening role="menu" with role="menuitem" entries.
// Arrow keys move between items, Escape closes and returns focus, a click outside closes.
import { html, useEffect, useId, useRef, useState } from "../lib/html.js";

export function Menu({ label, items, className = "", buttonClass = "btn btn-default", align = "right" }) {
	const [open, setOpen] = useState(false);
	const menuId = useId();
	const root = useRef(null);
	const button = useRef(null);
	const visible = (items || []).filter(Boolean);

	useEffect(() => {
		if (!open) return undefined;
		const first = root.current && root.current.querySelector('[role="menuitem"]:not([disabled])');
		if (first) first.focus();
		const outside = (event) => {
			if (root.current && !root.current.contains(event.target)) setOpen(false);
		};
		document.addEventListener("mousedown", outside);
		return () => document.removeEventListener("mousedown", outside);
	}, [open]);

	function move(event) {
		const entries = [...root.current.querySelectorAll('[role="menuitem"]:not([disabled])')];
		const index = entries.indexOf(document.activeElement);
		if (event.key === "ArrowDown" || event.key === "ArrowUp") {
			event.preventDefault();
			const step = event.key === "ArrowDown" ? 1 : -1;
			const next = entries[(index + step + entries.length) % entries.length];
			if (next) next.focus();
		} else if (event.key === "Home" || event.key === "End") {
			event.preventDefault();
			const next = event.key === "Home" ? entries[0] : entries[entries.length - 1];
			if (next) next.focus();
		} else if (event.key === "Escape") {
			event.preventDefault();
			event.stopPropagation();
			setOpen(false);
			button.current.focus();
		} else if (event.key === "Tab") {
			setOpen(false);
		}
	}

	function choose(item) {
		setOpen(false);
		button.current.focus();
		if (item.onClick) item.onClick();
	}

	if (!visible.length) return null;
	return html`<div class=${`menu ${className}`} ref=${root}>
		<button type="button" ref=${button} class=${buttonClass} aria-haspopup="menu" aria-expanded=${open ? "true" : "false"}
			aria-controls=${menuId} onClick=${() => setOpen(!open)}
			onKeyDown=${(e) => e.key === "ArrowDown" && (e.preventDefault(), setOpen(true))}>${label}</button>
		${open
			? html`<div id=${menuId} class=${`menu-list ${align}`} role="menu" aria-label=${label} onKeyDown=${move}>
					${visible.map(
						(item) => html`<button type="button" role="menuitem" class="menu-item" tabindex="-1" disabled=${item.disabled}
							onClick=${() => choose(item)}>${item.label}</button>`,
					)}
				</div>`
			: null}
	</div>`;
}
