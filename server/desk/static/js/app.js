// The Desk's frame: the top bar (home link, the sidebar toggle on narrow screens, the awesome bar,
// the user menu with Log out), the sidebar of modules, and the view of the current route (views/registry.js), which is
// checked against the user's rights first ("Not permitted") and loaded on first use. Keyboard: after
// a navigation the focus goes to the page (unless a view took it), Escape closes the sidebar drawer
// of a narrow screen and gives the focus back to its toggle.
import { call } from "./api.js";
import { boot, hasRight } from "./boot.js";
import { __ } from "./i18n.js";
import { html, useEffect, useRef, useState } from "./lib/html.js";
import { currentRoute, onRouteChange } from "./router.js";
import { AwesomeBar } from "./ui/awesome_bar.js";
import { LayerHost } from "./ui/host.js";
import { Menu } from "./ui/menu.js";
import { Notifications } from "./ui/notifications.js";
import { showError } from "./ui/messages.js";
import { NotFound, NotPermitted } from "./ui/page.js";
import { Sidebar } from "./ui/sidebar.js";
import { viewLoader } from "./views/registry.js";

/** Why the user may not open `route`, or null when they may. */
export function refusal(route) {
	if (route.kind === "list" && !hasRight(route.doctype, "read")) return "not-permitted";
	if (route.kind === "form" && route.isNew && !hasRight(route.doctype, "create")) return "not-permitted";
	if (route.kind === "form" && !route.isNew && !hasRight(route.doctype, "read")) return "not-permitted";
	if (route.kind === "customize-form" && !hasRight("Property Setter", "write")) return "not-permitted";
	if (route.kind === "query-report") {
		const known = (boot.sidebar || []).some((s) => s.items.some((i) => i.type === "report" && i.name === route.report));
		if (!known) return "not-permitted";
	}
	return null;
}

export async function logout() {
	try {
		await call("logout");
	} catch (error) {
		showError(error);
		return;
	}
	location.assign("/login");
}

function RouteView({ route }) {
	const [loaded, setLoaded] = useState({ kind: null, View: null });
	const refused = route.kind === "not-found" ? "not-found" : refusal(route);
	const loader = refused ? null : viewLoader(route.kind);
	useEffect(() => {
		let cancelled = false;
		if (loader && loaded.kind !== route.kind) {
			loader()
				.then((module) => !cancelled && setLoaded({ kind: route.kind, View: module.default }))
				.catch((error) => {
					console.error(error);
					if (!cancelled) showError(error);
				});
		}
		return () => {
			cancelled = true;
		};
	}, [route.kind, loader]);
	if (refused === "not-found" || (!refused && !loader)) return html`<${NotFound} />`;
	if (refused) return html`<${NotPermitted} />`;
	if (loaded.kind !== route.kind) return html`<p class="page-loading" role="status">${__("Loading…")}</p>`;
	const View = loaded.View;
	// a new key per document or list remounts the view (its state belongs to one route)
	const key = `${route.kind}:${route.doctype || route.report || ""}:${route.name || ""}:${route.isNew ? "new" : ""}`;
	return html`<${View} key=${key} route=${route} />`;
}

/** Whether the focus is lost (on the body, a removed element) or in the sidebar: then a navigation
 * moves it to the page, so keyboard and screen-reader users continue at the new content. */
function focusIsAdrift() {
	const active = document.activeElement;
	return !active || active === document.body || !active.isConnected || Boolean(active.closest(".sidebar"));
}

function skipToContent(event) {
	const main = document.getElementById("main");
	if (!main) return;
	event.preventDefault(); // no "#main" in the address bar
	main.focus();
}

export function App() {
	const [route, setRoute] = useState(currentRoute());
	const [menuOpen, setMenuOpen] = useState(false);
	const toggle = useRef(null);
	useEffect(() => onRouteChange((next) => {
		setRoute(next);
		setMenuOpen(false);
	}), []);
	const firstPath = useRef(route.path);
	useEffect(() => {
		// not on the first page (Tab starts at the skip link); after a navigation, once the new view
		// rendered (and perhaps focused a field of its own)
		if (route.path === firstPath.current) return undefined;
		firstPath.current = null;
		const timer = setTimeout(() => {
			const main = document.getElementById("main");
			if (main && focusIsAdrift()) main.focus({ preventScroll: true });
		}, 0);
		return () => clearTimeout(timer);
	}, [route.path]);
	function onKeyDown(event) {
		if (event.key === "Escape" && menuOpen && !event.defaultPrevented) {
			setMenuOpen(false);
			if (toggle.current) toggle.current.focus();
		}
	}
	return html`<div class=${`desk ${menuOpen ? "sidebar-open" : ""}`} onKeyDown=${onKeyDown}>
		<a class="skip-link" href="#main" onClick=${skipToContent}>${__("Skip to content")}</a>
		<header class="navbar">
			<button type="button" class="btn-icon sidebar-toggle" aria-label=${__("Menu")} aria-expanded=${menuOpen ? "true" : "false"}
				aria-controls="desk-sidebar" ref=${toggle} onClick=${() => setMenuOpen(!menuOpen)}>☰</button>
			<a class="brand" href="/app">fw</a>
			<${AwesomeBar} />
			<div class="navbar-spacer"></div>
			<${Notifications} />
			<${Menu} label=${boot.full_name || boot.user} buttonClass="btn btn-link user-menu" items=${[
				{ label: __("Reload"), onClick: () => location.reload() },
				{ label: __("Log out"), onClick: logout },
			]} />
		</header>
		<div class="desk-body">
			<${Sidebar} path=${route.path || location.pathname} onNavigate=${() => setMenuOpen(false)} />
			<main id="main" class="desk-main" tabindex="-1">
				<${RouteView} route=${route} />
			</main>
		</div>
		<${LayerHost} />
	</div>`;
}
