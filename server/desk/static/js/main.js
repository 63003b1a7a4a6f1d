// The Desk starts here: read the boot, install the `frappe` namespace (before any app script runs),
// load the apps' `app_include_js`/`app_include_css`, then render the frame and the current route,
// and connect to realtime. An expired session sends the user to the login page and back.
import { apiEvents } from "./api.js";
import { App } from "./app.js";
import { boot, loadBoot } from "./boot.js";
import { installFrappe } from "./frappe/index.js";
import { addMessages } from "./i18n.js";
import { html, render } from "./lib/html.js";
import { loadScript } from "./meta.js";
import { startRealtime } from "./realtime.js";
import { here, startRouter } from "./router.js";
import { startMessages } from "./ui/messages.js";
import { startProgress } from "./ui/progress.js";

function loadStylesheet(url) {
	const link = document.createElement("link");
	link.rel = "stylesheet";
	link.href = url;
	document.head.append(link);
}

async function loadAppIncludes() {
	for (const url of boot.app_include_css || []) loadStylesheet(url);
	for (const url of boot.app_include_js || []) {
		await loadScript(url).catch((error) => console.error(error));
	}
}

function onSessionExpired() {
	// after every listener ran (an open form keeps what was typed first)
	setTimeout(() => location.assign(`/login?redirect-to=${encodeURIComponent(here())}`), 0);
}

async function start() {
	loadBoot();
	addMessages(boot.messages);
	document.documentElement.lang = boot.lang || "en";
	installFrappe(window);
	startMessages();
	startProgress();
	startRouter();
	apiEvents.on("session-expired", onSessionExpired);
	await loadAppIncludes();
	const root = document.getElementById("app");
	root.textContent = ""; // the shell's "Loading…"
	render(html`<${App} />`, root);
	startRealtime().catch((error) => console.error("realtime", error));
}

start().catch((error) => {
	console.error(error);
	const root = document.getElementById("app");
	if (root) root.textContent = String(error && error.message ? error.message : error);
});
