// The password pages: "Forgot password?" (/forgot-password) asks the server to mail a link, and
// /update-password?key=... sets the new password with that link's key, then goes where the server
// says (the login page). Their texts come from the page (data-* attributes), translated server-side.
const message = document.getElementById("password-message");

function show(text, info = false) {
	message.textContent = text;
	message.classList.toggle("is-info", info);
}

function messageOf(body, status) {
	if (body && typeof body === "object") {
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

async function call(form, method, args, onDone) {
	const button = form.querySelector('button[type="submit"]');
	const label = button.textContent;
	button.disabled = true;
	button.textContent = form.dataset.busy;
	show("");
	try {
		const response = await fetch(`/api/method/${method}`, {
			method: "POST",
			headers: { "Content-Type": "application/json", Accept: "application/json" },
			body: JSON.stringify(args),
			credentials: "same-origin",
		});
		let body = null;
		try {
			body = await response.json();
		} catch {
			body = null;
		}
		if (response.ok) onDone(body ? body.message : null);
		else show(messageOf(body, response.status));
	} catch {
		show(form.dataset.networkError);
	} finally {
		button.disabled = false;
		button.textContent = label;
	}
}

const forgot = document.getElementById("forgot-form");
if (forgot) {
	forgot.addEventListener("submit", (event) => {
		event.preventDefault();
		const user = forgot.elements.user.value.trim();
		if (!user) {
			show(forgot.dataset.missing);
			forgot.elements.user.focus();
			return;
		}
		call(forgot, "fw.core.doctype.user.user.reset_password", { user }, (answer) => show(String(answer || ""), true));
	});
}

const update = document.getElementById("update-form");
if (update) {
	update.addEventListener("submit", (event) => {
		event.preventDefault();
		const password = update.elements.new_password.value;
		if (!password) {
			show(update.dataset.missing);
			update.elements.new_password.focus();
			return;
		}
		if (password !== update.elements.confirm_password.value) {
			show(update.dataset.mismatch);
			update.elements.confirm_password.select();
			return;
		}
		call(update, "fw.core.doctype.user.user.update_password", { new_password: password, key: update.dataset.key }, (next) => {
			show(update.dataset.done, true);
			const target = typeof next === "string" && next.startsWith("/") && !next.startsWith("//") ? next : "/login";
			setTimeout(() => location.assign(target), 800);
		});
	});
}
