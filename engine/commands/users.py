"""`fw set-admin-password` and `fw add-user`: bootstrap users through the User controller, so
passwords are hashed exactly as in a request (argon2id) and the User rules apply."""

from __future__ import annotations

import click

from engine.commands._base import console, fail, opened_site, run
from engine.settings import Settings


@click.command("set-admin-password")
@click.argument("password")
def set_admin_password(password: str) -> None:
    """Set the password of the Administrator user (created first on a fresh site)."""
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine.context import unit_of_work
    from engine.core.bootstrap import ensure_bootstrap
    from engine.documents.factory import get_doc

    if not password.strip():
        fail("The password must not be empty.")

    async def go(settings: Settings) -> None:
        async with opened_site(settings) as site:
            await ensure_bootstrap(site)
            ctx = site.context("Administrator")
            async with unit_of_work(ctx):
                user = await get_doc(ctx, "User", "Administrator")
                user.new_password = password
                user.flags["ignore_permissions"] = True
                await user.save(ignore_permissions=True)

    run(go)
    console.print("[green]Updated[/green] the Administrator password.")


@click.command("add-user")
@click.argument("email")
@click.option("--password", required=True, help="The user's password (stored only as a hash).")
@click.option("--role", "roles", multiple=True, help="A role to give (repeat for several).")
@click.option("--first-name", help="Defaults to the part of EMAIL before the @.")
@click.option("--last-name")
@click.option("--user-type", type=click.Choice(["System User", "Website User"]), default="System User",
              show_default=True)
@click.option("--create-roles", is_flag=True, help="Create roles that do not exist yet instead of failing.")
def add_user(email: str, password: str, roles: tuple[str, ...], first_name: str | None, last_name: str | None,
             user_type: str, create_roles: bool) -> None:
    """Create the user EMAIL with a password and roles."""
    # deferred: `fw` starts without loading what only this command needs (CLI start-up time)
    from engine.context import unit_of_work
    from engine.core.bootstrap import ensure_bootstrap
    from engine.documents import store
    from engine.documents.factory import new_doc

    if "@" not in email:
        fail(f"{email!r} is not an email address; users are named by their email.")
    if not password.strip():
        fail("The password must not be empty.")
    wanted = list(dict.fromkeys(r.strip() for r in roles if r.strip()))

    async def go(settings: Settings) -> list[str]:
        async with opened_site(settings) as site:
            await ensure_bootstrap(site)
            ctx = site.context("Administrator")
            if await store.collection_of(site, "User").find_one({"_id": email}, {"_id": 1}):
                fail(f"User {email!r} already exists. Use the API or `fw execute` to change it.")
            present = set(await store.collection_of(site, "Role").distinct("_id", {"_id": {"$in": wanted}}))
            missing = [r for r in wanted if r not in present]
            if missing and not create_roles:
                fail(f"Role(s) {', '.join(repr(r) for r in missing)} do not exist. Create them first (e.g. with "
                     "an app's fixtures), or pass --create-roles.")
            async with unit_of_work(ctx):
                for role in missing:
                    await new_doc(ctx, "Role", role_name=role).insert()
                await new_doc(ctx, "User", email=email, first_name=first_name or email.split("@", 1)[0],
                              last_name=last_name, user_type=user_type, enabled=1, new_password=password,
                              roles=[{"role": r} for r in wanted]).insert()
            return missing

    created = run(go)
    if created:
        console.print(f"[green]Created[/green] role(s) {', '.join(created)}")
    console.print(f"[green]Added[/green] user {email} with role(s) {', '.join(wanted) or '(none)'}")
