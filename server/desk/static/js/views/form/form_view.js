// /app/<doctype>/<name> and /app/<doctype>/new (and a Single's /app/<doctype>): the form view
// (desk.md §4). It loads the meta (cached) and the document (getdoc) or makes a new one (defaults and
// route options, or the copy Amend and Duplicate hand over), runs the doctype's form scripts
// (`setup`, `onload`, `refresh`, `onload_post_render`) through the `frm` object (form/form.js),
// and renders its title, indicator, document actions (actions.js, doc_actions.js), the workflow's
// Actions menu (workflow.js), script buttons, intro, dashboard and layout. Ctrl+S saves; leaving
// with unsaved changes asks first (a new document no one has changed yet is left without asking);
// when the session expires, what was typed is kept and put back after logging in; when someone else
// changes the document, an unchanged form reloads and a changed one says so (doc_watch.js).
import { apiEvents, getDoc } from "../../api.js";
import { boot, hasRight, slug } from "../../boot.js";
import { __ } from "../../i18n.js";
import { docIndicator } from "../../indicators.js";
import { html, useEffect, useMemo, useState, useSubscription } from "../../lib/html.js";
import { getMeta, loadFormScripts } from "../../meta.js";
import { newDoc } from "../../model.js";
import { formUrl } from "../../routes.js";
import { addLeaveGuard, replaceLocation, takeRouteOptions } from "../../router.js";
import { confirmDialog } from "../../ui/confirm.js";
import { Indicator } from "../../ui/indicator.js";
import { showToast } from "../../ui/layers.js";
import { Menu } from "../../ui/menu.js";
import { showError } from "../../ui/messages.js";
import { NotFound, NotPermitted, Page } from "../../ui/page.js";
import { createForm } from "../../form/create.js";
import { leaveForm, setCurrentForm } from "../../form/current.js";
import { offeredActions } from "./actions.js";
import { amendDoc, cancelDoc, deleteForm, duplicateDoc, newForm, reloadForm, submitDoc, workflowAction } from "./doc_actions.js";
import { lockDefinitionForm } from "./doctype_lock.js";
import { NewName } from "./new_name.js";
import { useDocWatch } from "./doc_watch.js";
import { takeDraft } from "./drafts.js";
import { buildLayout, FormLayout } from "./layout.js";
import { FormPanel } from "./panels.js";
import { openPrint } from "./print.js";
import { saveForm } from "./save.js";
import { FormSidebar, refreshDocinfo } from "./sidebar.js";
import { allowedTransitions, fetchTransitions, needsServer, workflowOf } from "./workflow.js";

const STASH_PREFIX = "fw:unsaved:";

function stashKey() {
	return STASH_PREFIX + location.pathname;
}

/** Put back what was typed before the session expired (same document, unchanged since). */
function restoreStash(doc) {
	let stashed = null;
	try {
		stashed = JSON.parse(sessionStorage.getItem(stashKey()) || "null");
		sessionStorage.removeItem(stashKey());
	} catch {
		return false;
	}
	if (!stashed || stashed.doctype !== doc.doctype || (!doc.__islocal && stashed.modified !== doc.modified)) return false;
	for (const [key, value] of Object.entries(stashed)) {
		if (!["name", "owner", "creation", "modified", "modified_by", "docstatus"].includes(key)) doc[key] = value;
	}
	doc.__unsaved = 1;
	return true;
}

/** Fire a form event; a script that fails is reported in the console, and the form still opens. */
async function runEvent(frm, event) {
	try {
		await (event === "refresh" ? frm.refresh() : frm.trigger(event));
	} catch (error) {
		console.error(`${frm.doctype} ${event} failed`, error);
	}
}

export default function FormView({ route }) {
	const [state, setState] = useState({ frm: null, error: null });

	useEffect(() => {
		let cancelled = false;
		(async () => {
			const meta = await getMeta(route.doctype);
			await loadFormScripts(meta);
			let doc;
			let docinfo = {};
			if (route.isNew) {
				doc = takeDraft(route.doctype) || newDoc(meta, { user: boot.user, values: takeRouteOptions(), linkDefaults: boot.user_defaults });
			} else {
				({ doc, docinfo } = await getDoc(route.doctype, route.name));
			}
			const restored = restoreStash(doc);
			const frm = createForm(meta, doc, { docinfo, onSave: (form, action) => runAction(form, action), onReload: reload });
			lockDefinitionForm(frm);
			setCurrentForm(frm);
			await runEvent(frm, "setup");
			await runEvent(frm, "onload");
			await runEvent(frm, "refresh");
			if (cancelled) return;
			// what was typed before the session expired is the user's; a new document holds nothing of
			// theirs yet, whatever its opening scripts set: leaving it asks nothing
			if (restored) frm.dirty();
			else if (frm.is_new()) frm.settle();
			setState({ frm, error: null });
			if (restored) showToast(__("Your unsaved changes were restored"), { indicator: "orange" });
			await runEvent(frm, "onload_post_render");
		})().catch((error) => {
			if (!cancelled) setState({ frm: null, error });
		});
		return () => {
			cancelled = true;
		};
	}, [route.doctype, route.name, route.isNew]);

	if (state.error) {
		if (state.error.status === 404) return html`<${NotFound} />`;
		if (state.error.status === 403) return html`<${NotPermitted} />`;
		return html`<${Page} title=${__(route.doctype)}><p class="page-message" role="alert">${state.error.message}</p></${Page}>`;
	}
	if (!state.frm) return html`<${Page} title=${__(route.doctype)}><p class="page-loading" role="status">${__("Loading…")}</p></${Page}>`;
	return html`<${FormPage} frm=${state.frm} />`;
}

/** After an action changed the document: the scripts' refresh, the URL naming the document. */
async function refreshForm(frm) {
	refreshDocinfo(frm).catch((error) => console.error(error));
	await runEvent(frm, "refresh");
	const url = formUrl(frm.doctype, frm.docname, slug);
	if (!frm.is_new() && !frm.meta.issingle && location.pathname !== url) replaceLocation(url);
}

/** `frm.save(action)`: Save and Update, and Submit and Cancel (Frappe's savesubmit/savecancel,
 * which ask first themselves). */
async function runAction(frm, action) {
	if (action === "Submit") return submitDoc(frm, { refresh: refreshForm, ask: false });
	if (action === "Cancel") return cancelDoc(frm, { refresh: refreshForm, ask: false });
	if (action !== "Save" && action !== "Update") throw new Error(`unknown action ${action}`);
	return saveForm(frm, {
		onSaved: (form, wasNew) => {
			if (wasNew) replaceLocation(formUrl(form.doctype, form.docname, slug));
			refreshDocinfo(form).catch((error) => console.error(error));
		},
	});
}

async function reload(frm) {
	const { doc, docinfo } = await getDoc(frm.doctype, frm.docname);
	frm.load(doc, docinfo);
	await runEvent(frm, "refresh");
}

/** The workflow transitions the user may take now (from the meta, or the server's for conditions). */
function useTransitions(frm) {
	const workflow = workflowOf(frm.meta);
	const state = workflow ? frm.doc[workflow.field] : null;
	const [fetched, setFetched] = useState({ key: null, list: [] });
	const key = workflow && !frm.is_new() ? `${frm.docname}\0${state}\0${frm.doc.modified}` : null;
	const remote = Boolean(key && needsServer(workflow, frm.doc));
	useEffect(() => {
		if (!remote) return undefined;
		let gone = false;
		fetchTransitions(frm.doc)
			.then((list) => !gone && setFetched({ key, list }))
			.catch(() => !gone && setFetched({ key, list: [] }));
		return () => {
			gone = true;
		};
	}, [key, remote]);
	if (!key) return [];
	if (remote) return fetched.key === key ? fetched.list : [];
	return allowedTransitions(workflow, frm.doc, { roles: boot.roles, user: boot.user });
}

/** The form's title: its title field's value, else its name ("New Warehouse Violation" when new). */
export function formTitle(frm) {
	if (frm.is_new()) return __("New {0}", [__(frm.doctype)]);
	if (frm.meta.issingle) return __(frm.doctype);
	const field = frm.meta.title_field;
	const value = field ? frm.doc[field] : null;
	return value === undefined || value === null || value === "" ? String(frm.docname) : String(value);
}

function FormPage({ frm }) {
	const subscribe = useMemo(() => (callback) => frm.subscribe(callback), [frm]);
	useSubscription(subscribe);
	const layout = useMemo(() => buildLayout(frm.meta.fields), [frm.meta]);
	const save = () => frm.save("Save").catch((error) => showError(error));
	const transitions = useTransitions(frm);
	const offered = offeredActions(frm, { transitions, canCreate: hasRight(frm.doctype, "create") });
	const watch = useDocWatch(frm, () => reload(frm));

	useEffect(() => {
		const onKey = (event) => {
			if ((event.ctrlKey || event.metaKey) && !event.altKey && (event.key === "s" || event.key === "S")) {
				event.preventDefault();
				if (offeredActions(frm).buttons.some((a) => a.shortcut === "Ctrl+S")) save();
			}
		};
		let stashed = false;
		const onUnload = (event) => {
			if (frm.has_edits() && !stashed) {
				event.preventDefault();
				event.returnValue = "";
			}
		};
		const onExpired = () => {
			if (!frm.has_edits()) return;
			try {
				sessionStorage.setItem(stashKey(), JSON.stringify(frm.doc));
				stashed = true;
			} catch {
				// storage disabled: the browser asks before leaving instead
			}
		};
		const removeGuard = addLeaveGuard(async () =>
			!frm.has_edits() || (await confirmDialog(__("You have unsaved changes. Leave this page anyway?"), { title: __("Unsaved changes") })));
		const stopExpired = apiEvents.on("session-expired", onExpired);
		document.addEventListener("keydown", onKey);
		window.addEventListener("beforeunload", onUnload);
		return () => {
			document.removeEventListener("keydown", onKey);
			window.removeEventListener("beforeunload", onUnload);
			removeGuard();
			stopExpired();
			leaveForm(frm);
		};
	}, [frm]);

	// an unsaved change wins over a script's indicator (as in Frappe), until the next save or reload
	const indicator = frm.is_dirty()
		? docIndicator({ ...frm.doc, __unsaved: 1 }, frm.meta)
		: frm.indicator || docIndicator({ ...frm.doc, __unsaved: 0 }, frm.meta);
	const user = boot.user;
	const run = (promise) => Promise.resolve(promise).catch((error) => showError(error));
	const handlers = {
		save,
		submit: () => run(submitDoc(frm, { refresh: refreshForm })),
		cancel: () => run(cancelDoc(frm, { refresh: refreshForm })),
		amend: () => run(amendDoc(frm, { user })),
		reload: () => run(reloadForm(frm)),
		duplicate: () => run(duplicateDoc(frm, { user })),
		new: () => run(newForm(frm)),
		delete: () => run(deleteForm(frm)),
		print: () => openPrint(frm),
		workflow: (action) => run(workflowAction(frm, action, { refresh: refreshForm })),
	};
	return html`<${Page} title=${formTitle(frm)} indicator=${indicator} className="form-page"
		subtitle=${!frm.is_new() && frm.meta.title_field && formTitle(frm) !== frm.docname ? frm.docname : null}
		actions=${html`<${Toolbar} frm=${frm} offered=${offered} handlers=${handlers} />`}>
		${watch.notice}
		${frm.intro ? html`<div class=${`form-intro ${frm.intro.color}`} role="note">${frm.intro.text}</div>` : null}
		<${Dashboard} frm=${frm} />
		<div class="form-columns">
			<form class="form-body" novalidate onSubmit=${(e) => {
				e.preventDefault();
				save();
			}}>
				<${NewName} frm=${frm} />
				<${FormLayout} frm=${frm} layout=${layout} />
				<${FormPanel} frm=${frm} />
			</form>
			<${FormSidebar} frm=${frm} />
		</div>
	</${Page}>`;
}

function Toolbar({ frm, offered, handlers }) {
	const loose = frm.custom_buttons.filter((b) => !b.group);
	const groups = [...new Set(frm.custom_buttons.filter((b) => b.group).map((b) => b.group))];
	const run = (button) => {
		try {
			const result = button.handler && button.handler();
			if (result && typeof result.catch === "function") result.catch((error) => showError(error));
		} catch (error) {
			showError(error);
		}
	};
	return html`<div class="form-toolbar">
		${loose.map((button) => html`<button type="button" class=${`btn btn-${button.type === "primary" ? "primary" : "default"}`}
			onClick=${() => run(button)}>${button.label}</button>`)}
		${groups.map((group) => html`<${Menu} label=${group} items=${frm.custom_buttons.filter((b) => b.group === group)
			.map((button) => ({ label: button.label, onClick: () => run(button) }))} />`)}
		${offered.workflow.length || frm.action_items.length
			? html`<${Menu} label=${__("Actions")} buttonClass="btn btn-primary" className="workflow-actions"
					items=${[...offered.workflow.map((item) => ({ label: item.label, disabled: frm.saving, onClick: () => handlers.workflow(item.action) })),
						...frm.action_items.map((item) => ({ label: item.label, onClick: () => run(item) }))]} />`
			: null}
		${offered.menu.length || frm.menu_items.length
			? html`<${Menu} label=${__("Menu")} className="form-menu"
					items=${[...frm.menu_items.map((item) => ({ label: item.label, onClick: () => run(item) })),
						...offered.menu.map((item) => ({ label: item.label, onClick: () => handlers[item.key]() }))]} />`
			: null}
		${offered.buttons.map((action) => html`<button type="button" class=${`btn ${action.primary ? "btn-primary" : "btn-default"}`}
			disabled=${frm.saving} aria-keyshortcuts=${action.shortcut === "Ctrl+S" ? "Control+S" : undefined}
			onClick=${() => handlers[action.key]()}>${action.label}</button>`)}
	</div>`;
}

function Dashboard({ frm }) {
	const { indicators, headline } = frm.dashboard;
	if (!indicators.length && !headline) return null;
	return html`<div class="form-dashboard">
		${headline ? html`<p class=${`dashboard-headline ${headline.color}`}>${headline.text}</p>` : null}
		${indicators.length
			? html`<ul class="dashboard-indicators" aria-label=${__("Dashboard")}>
					${indicators.map((item, index) => html`<li key=${index}><${Indicator} label=${item.label} color=${item.color} /></li>`)}
				</ul>`
			: null}
	</div>`;
}
