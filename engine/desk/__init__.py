"""What the browser Desk needs from the engine beyond the public API: the boot payload (`boot`), the
sidebar of modules (`sidebar`), Customize Form's methods (`customize_form`), bulk actions on a
list's selection (`bulk_actions`), comments (`comments`), group-by counts (`group_by`) and each
user's list settings (`user_settings`). The server (server/desk/) only serialises what these build."""
