// A tiny publish/subscribe helper: `on` returns a function that unsubscribes.
export class Emitter {
	constructor() {
		this.handlers = new Map();
	}

	on(event, handler) {
		if (!this.handlers.has(event)) this.handlers.set(event, new Set());
		this.handlers.get(event).add(handler);
		return () => this.off(event, handler);
	}

	off(event, handler) {
		const set = this.handlers.get(event);
		if (!set) return;
		if (handler) set.delete(handler);
		else set.clear();
	}

	emit(event, ...args) {
		for (const handler of [...(this.handlers.get(event) || [])]) {
			try {
				handler(...args);
			} catch (error) {
				console.error(`handler of ${event} failed`, error);
			}
		}
	}
}
