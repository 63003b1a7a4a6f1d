// A page's frame inside the Desk: a header with the title (an <h1>), an indicator, the actions on the
// right, then the content. Views also set the document title.
import { __ } from "../i18n.js";
import { html, useEffect } from "../lib/html.js";
import { Indicator } from "./indicator.js";

export function Page({ title, indicator, actions, subtitle, children, className = "" }) {
	useEffect(() => {
		document.title = title ? `${title} | fw` : "fw";
	}, [title]);
	return html`<section class=${`page ${className}`}>
		<header class="page-head">
			<div class="page-title">
				<h1>${title}</h1>
				${indicator ? html`<${Indicator} ...${indicator} />` : null}
				${subtitle ? html`<span class="page-subtitle">${subtitle}</span>` : null}
			</div>
			<div class="page-actions">${actions}</div>
		</header>
		<div class="page-body">${children}</div>
	</section>`;
}

/** "Not found" / "Not permitted" inside the Desk. */
export function Message({ title, message, children }) {
	return html`<${Page} title=${title}>
		<div class="page-message" role="status">
			<p>${message}</p>
			${children}
		</div>
	</${Page}>`;
}

export function NotFound() {
	return html`<${Message} title=${__("Not found")} message=${__("The page you are looking for does not exist.")}>
		<p><a href="/app">${__("Home")}</a></p>
	</${Message}>`;
}

export function NotPermitted() {
	return html`<${Message} title=${__("Not permitted")} message=${__("You are not permitted to open this page.")}>
		<p><a href="/app">${__("Home")}</a></p>
	</${Message}>`;
}
