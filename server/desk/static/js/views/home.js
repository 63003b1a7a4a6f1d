// /app: the modules the user works in, each with its doctypes and reports (the boot's sidebar).
import { boot } from "../boot.js";
import { __ } from "../i18n.js";
import { html } from "../lib/html.js";
import { Page } from "../ui/page.js";

export default function Home() {
	const sections = boot.sidebar || [];
	return html`<${Page} title=${__("Home")} className="home">
		${sections.length
			? html`<div class="module-grid">
					${sections.map(
						(section) => html`<section class="module-card" key=${section.module} aria-labelledby=${`module-${section.module}`}>
							<h2 id=${`module-${section.module}`}>${section.label}</h2>
							<ul>
								${section.items.map(
									(item) => html`<li key=${item.type + item.name}>
										<a href=${item.route}>${item.label}</a>
										${item.type === "report" ? html` <span class="muted">${__("Report")}</span>` : null}
									</li>`,
								)}
							</ul>
						</section>`,
					)}
				</div>`
			: html`<p class="page-message">${__("There is nothing you may open yet. Ask your System Manager for a role.")}</p>`}
	</${Page}>`;
}
