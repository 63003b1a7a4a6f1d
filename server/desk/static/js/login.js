// The login page: logs in through /api/method/login (so the server's own messages, lockout
// included, are shown as they are) and goes to the page the server checked as a `redirect-to`
// (a path on this site). Without this script the form posts to /login, which does the same.
const form = document.getElementById("login-form");
const message = document.getElementById("login-message");

function show(text) {
	message.textContent = text;
}

function target() {
	const url = new URL(form.dataset.redirect || "/app", location.origin);
	return url.origin === location.origin ? url.pathname + url.search + url.hash : "/app";
}

function messageOf(body, status) {
	if (body && typeof body === "object") {
		if (Array.isArray(body.errors) && body.errors[0] && body.errors[0].message) return String(body.errors[0].message);
		if (typeof body.message === "string" && body.message) return body.message;
		if (body._server_messages) {
			try {
				const first = JSON.parse(JSON.parse(body._server_messages)[0]);
				if (first && first.message) return String(first.message);
			} catch {
				// fall through
			}
		}
	}
	return `${status}`;
}

async function submit(event) {
	event.preventDefault();
	const usr = form.elements.usr.value.trim();
	const pwd = form.elements.pwd.value;
	if (!usr || !pwd) {
		show(form.dataset.missing);
		(usr ? form.elements.pwd : form.elements.usr).focus();
		return;
	}
	const button = form.querySelector('button[type="submit"]');
	const label = button.textContent;
	button.disabled = true;
	button.textContent = form.dataset.busy;
	show("");
	try {
		const response = await fetch("/api/method/login", {
			method: "POST",
			headers: { "Content-Type": "application/json", Accept: "application/json" },
			body: JSON.stringify({ usr, pwd }),
			credentials: "same-origin",
		});
		let body = null;
		try {
			body = await response.json();
		} catch {
			body = null;
		}
		if (response.ok) {
			location.assign(target());
			return;
		}
		show(messageOf(body, response.status));
		form.elements.pwd.select();
	} catch {
		show(form.dataset.networkError);
	} finally {
		button.disabled = false;
		button.textContent = label;
	}
}

form.addEventListener("submit", submit);
