// The sidebar: one section per module with the doctypes the user may read and the reports the user
// may run (the boot's `sidebar`), as links. The current page's link is marked `aria-current`.
import { boot } from "../boot.js";
import { __ } from "../i18n.js";
import { html } from "../lib/html.js";

function isCurrent(item, path) {
	const route = decodeURI(item.route);
	const here = decodeURI(path);
	return here === route || here.startsWith(`${route}/`);
}

export function Sidebar({ path, onNavigate }) {
	return html`<nav class="sidebar" id="desk-sidebar" aria-label=${__("Modules")}>
		${(boot.sidebar || []).map(
			(section) => html`<section class="sidebar-section" key=${section.module}>
				<h2 class="sidebar-heading">${section.label}</h2>
				<ul>
					${section.items.map(
						(item) => html`<li key=${item.type + item.name}>
							<a href=${item.route} class=${`sidebar-link ${item.type}`} aria-current=${isCurrent(item, path) ? "page" : undefined}
								onClick=${onNavigate}>${item.label}</a>
						</li>`,
					)}
				</ul>
			</section>`,
		)}
	</nav>`;
}
