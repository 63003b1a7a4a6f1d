// The indicator pill: a coloured dot and its label (the label is the accessible text).
import { colourName } from "../indicators.js";
import { html } from "../lib/html.js";

export function Indicator({ label, color, title, className = "" }) {
	if (!label) return null;
	return html`<span class=${`indicator-pill ${colourName(color)} ${className}`} title=${title || label}>${label}</span>`;
}
