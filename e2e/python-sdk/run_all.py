#!/usr/bin/env python3
"""
Calls every public method of SuprSend's Python SDK (suprsend-py-sdk 0.19.7, vendored
unmodified in ./vendor) against a Herald, configured only with Herald's base URL and a
workspace key/secret, and prints one JSON line per call:

    {"method": "users.upsert", "ok": true, "detail": "...", "result": {...}}

The calling test (apps/herald/src/python-sdk-compatibility.e2e.spec.ts) sets up the
workspace first: the preference category `account`, the committed inbox template
`py-welcome` (`{{$recipient.role}}: {{name}}`) and the workflow `py-welcome` sending it.

Environment: HERALD_BASE_URL, HERALD_WORKSPACE_KEY, HERALD_WORKSPACE_SECRET and
HERALD_TEST_TAG (a suffix that keeps this run's ids apart from another's).
"""
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vendor"))

from suprsend import (  # noqa: E402
    BulkResponse, Event, Suprsend, SubscriberListBroadcast, UserEdit, Workflow, WorkflowTriggerRequest,
)

TAG = os.environ["HERALD_TEST_TAG"]
client = Suprsend(os.environ["HERALD_WORKSPACE_KEY"], os.environ["HERALD_WORKSPACE_SECRET"],
                  base_url=os.environ["HERALD_BASE_URL"])

USER = f"py-user-{TAG}"
OTHER = f"py-other-{TAG}"
TENANT = f"py-tenant-{TAG}"
SPARE_TENANT = f"py-spare-{TAG}"
OBJECT_TYPE = "py-teams"
OBJECT_ID = f"py-team-{TAG}"
LIST_ID = f"py-list-{TAG}"
WEBPUSH = {"endpoint": f"https://push.example.com/{TAG}", "keys": {"p256dh": "p256", "auth": "auth"}}


def outcome(value):
    """Whether a method's answer is a success, as the SDK reports one."""
    if isinstance(value, BulkResponse):
        return value.status == "success" and value.failure == 0, str(value)
    if isinstance(value, dict):
        if value.get("success") is False or value.get("status") == "fail":
            return False, json.dumps(value, default=str)[:2000]
        if isinstance(value.get("status_code"), int) and value["status_code"] >= 400:
            return False, json.dumps(value, default=str)[:2000]
    return True, ""


def jsonable(value):
    if isinstance(value, BulkResponse):
        return {k: v for k, v in vars(value).items()}
    return value


def call(name, fn):
    """Runs one SDK call and prints its line; answers its result (None when it raised)."""
    try:
        value = fn()
        ok, detail = outcome(value)
    except Exception as ex:  # the SDK raises SuprsendAPIException with Herald's status and message
        value, ok, detail = None, False, f"{type(ex).__name__}: {ex}"
    print(json.dumps({"method": name, "ok": ok, "detail": detail, "result": jsonable(value)}, default=str), flush=True)
    return value


def edit_everything(edit):
    """Every operation method of a UserEdit/ObjectEdit, and of a Subscriber (user.get_instance)."""
    edit.set({"name": "Py", "role": "member"})
    edit.set_once("first_seen", "2026-01-01")
    edit.increment("logins", 1)
    edit.append("tags", "python")
    edit.remove("tags", "stale")
    edit.unset(["legacy"])
    edit.set_preferred_language("en")
    edit.set_locale("en_GB")
    edit.set_timezone("Europe/London")
    edit.add_email(f"py-{TAG}@example.com")
    edit.add_sms("+15555550100")
    edit.add_whatsapp("+15555550101")
    edit.add_androidpush("fcm-token", provider="fcm")
    edit.add_iospush("apns-token", provider="apns")
    edit.add_webpush(WEBPUSH, provider="vapid")
    edit.add_slack({"email": f"slack-{TAG}@example.com", "access_token": "xoxb-py"})
    edit.add_ms_teams({"tenant_id": "t", "service_url": "https://smba.trafficmanager.net/x", "conversation_id": "c"})
    return edit


def remove_everything(edit):
    edit.remove_email(f"gone-{TAG}@example.com")
    edit.remove_sms("+15555550199")
    edit.remove_whatsapp("+15555550198")
    edit.remove_androidpush("old-fcm", provider="fcm")
    edit.remove_iospush("old-apns", provider="apns")
    edit.remove_webpush({"endpoint": "https://push.example.com/old", "keys": {"p256dh": "p", "auth": "a"}}, provider="vapid")
    edit.remove_slack({"email": "old@example.com", "access_token": "xoxb-old"})
    edit.remove_ms_teams({"tenant_id": "t", "service_url": "https://smba.trafficmanager.net/x", "conversation_id": "old"})
    return edit


def main():
    attachment = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
    attachment.write("hello from python")
    attachment.close()

    # ---- tenants and brands
    call("tenants.upsert", lambda: client.tenants.upsert(TENANT, {"tenant_name": "Py Tenant", "properties": {"plan": "gold"}}))
    call("tenants.get", lambda: client.tenants.get(TENANT))
    call("tenants.list", lambda: client.tenants.list(limit=10, offset=0))
    call("tenants.update_preference_category", lambda: client.tenants.update_preference_category(
        TENANT, "account", {"preference": "opt_in", "visible_to_subscriber": True, "mandatory_channels": [], "blocked_channels": []}))
    call("tenants.list_preference_categories", lambda: client.tenants.list_preference_categories(TENANT))
    call("tenants.get_preference_category", lambda: client.tenants.get_preference_category(TENANT, "account"))
    call("brands.upsert", lambda: client.brands.upsert(f"py-brand-{TAG}", {"brand_name": "Py Brand", "timezone": "Europe/Berlin"}))
    call("brands.get", lambda: client.brands.get(f"py-brand-{TAG}"))
    call("brands.list", lambda: client.brands.list(limit=10))

    # ---- users
    call("users.upsert", lambda: client.users.upsert(USER, {"name": "Py", "role": "member", "$email": [f"py-{TAG}@example.com"]}))
    call("users.get", lambda: client.users.get(USER))
    call("users.list", lambda: client.users.list({"limit": 5}))
    call("users.get_edit_instance", lambda: isinstance(client.users.get_edit_instance(USER), UserEdit))
    call("users.edit(UserEdit)", lambda: client.users.edit(edit_everything(client.users.get_edit_instance(USER))))
    call("users.edit(distinct_id, payload)", lambda: client.users.edit(USER, {"operations": [{"$set": {"plan": "pro"}}]}))
    call("users.edit(removals)", lambda: client.users.edit(remove_everything(client.users.get_edit_instance(USER))))
    call("users.async_edit", lambda: client.users.async_edit(one_operation(client.users.get_edit_instance(USER), "async_edited", True)))
    bulk_edit = client.users.get_bulk_edit_instance()
    for suffix in ("a", "b"):
        e = client.users.get_edit_instance(f"py-bulk-{suffix}-{TAG}")
        e.set("bulk", suffix)
        bulk_edit.append(e)
    call("users.get_bulk_edit_instance().save", bulk_edit.save)

    # ---- the user in a tenant
    call("users.upsert_for_tenant", lambda: client.users.upsert_for_tenant(USER, TENANT, {"role": "owner", "$sms": ["+15555550111"]}))
    call("users.get_for_tenant", lambda: client.users.get_for_tenant(USER, TENANT))
    call("users.edit(UserEdit with tenant_id)", lambda: client.users.edit(one_operation(client.users.get_edit_instance(USER, tenant_id=TENANT), "seat", 7)))
    call("users.edit(distinct_id, payload, tenant_id)", lambda: client.users.edit(USER, {"operations": [{"$set": {"desk": "A1"}}]}, tenant_id=TENANT))
    call("tenants.upsert(spare)", lambda: client.tenants.upsert(SPARE_TENANT, {"tenant_name": "Spare"}))
    call("users.upsert_for_tenant(spare)", lambda: client.users.upsert_for_tenant(USER, SPARE_TENANT, {"role": "guest"}))
    call("users.list_associated_tenants", lambda: client.users.list_associated_tenants(USER, {"limit": 10}))
    call("users.unlink_tenant", lambda: client.users.unlink_tenant(USER, SPARE_TENANT))

    # ---- preferences of the user
    call("users.get_full_preference", lambda: client.users.get_full_preference(USER))
    call("users.update_global_channels_preference", lambda: client.users.update_global_channels_preference(
        USER, {"channel_preferences": [{"channel": "sms", "is_restricted": True}]}))
    call("users.get_category_preference", lambda: client.users.get_category_preference(USER, "account"))
    call("users.update_category_preference", lambda: client.users.update_category_preference(
        USER, "account", {"preference": "opt_in", "opt_out_channels": ["email"]}, {"tenant_id": TENANT}))

    # ---- objects
    call("objects.upsert", lambda: client.objects.upsert(OBJECT_TYPE, OBJECT_ID, {"name": "Team", "$email": [f"team-{TAG}@example.com"]}))
    call("objects.get", lambda: client.objects.get(OBJECT_TYPE, OBJECT_ID))
    call("objects.list", lambda: client.objects.list(OBJECT_TYPE, {"limit": 5}))
    call("objects.get_edit_instance", lambda: client.objects.get_edit_instance(OBJECT_TYPE, OBJECT_ID) is not None)
    call("objects.edit(ObjectEdit)", lambda: client.objects.edit(edit_everything(client.objects.get_edit_instance(OBJECT_TYPE, OBJECT_ID))))
    call("objects.edit(type, id, payload)", lambda: client.objects.edit(OBJECT_TYPE, OBJECT_ID, {"operations": [{"$set": {"size": 3}}]}))
    call("objects.create_subscriptions", lambda: client.objects.create_subscriptions(
        OBJECT_TYPE, OBJECT_ID, {"recipients": [USER, OTHER], "properties": {"role": "member"}}))
    call("objects.get_subscriptions", lambda: client.objects.get_subscriptions(OBJECT_TYPE, OBJECT_ID, {"limit": 10}))
    call("objects.delete_subscriptions", lambda: client.objects.delete_subscriptions(OBJECT_TYPE, OBJECT_ID, {"recipients": [OTHER]}))
    call("users.get_objects_subscribed_to", lambda: client.users.get_objects_subscribed_to(USER))
    call("objects.get_objects_subscribed_to", lambda: client.objects.get_objects_subscribed_to(OBJECT_TYPE, OBJECT_ID))
    call("objects.get_full_preference", lambda: client.objects.get_full_preference(OBJECT_TYPE, OBJECT_ID))
    call("objects.update_global_channels_preference", lambda: client.objects.update_global_channels_preference(
        OBJECT_TYPE, OBJECT_ID, {"channel_preferences": [{"channel": "sms", "is_restricted": True}]}))
    call("objects.get_category_preference", lambda: client.objects.get_category_preference(OBJECT_TYPE, OBJECT_ID, "account"))
    call("objects.update_category_preference", lambda: client.objects.update_category_preference(
        OBJECT_TYPE, OBJECT_ID, "account", {"preference": "opt_out"}))
    call("objects.upsert(to delete)", lambda: client.objects.upsert(OBJECT_TYPE, f"py-gone-{TAG}", {"name": "Gone"}))
    call("objects.delete", lambda: client.objects.delete(OBJECT_TYPE, f"py-gone-{TAG}"))
    call("objects.bulk_delete", lambda: client.objects.bulk_delete(OBJECT_TYPE, {"object_ids": [f"py-never-{TAG}"]}))

    # ---- lists
    call("subscriber_lists.create", lambda: client.subscriber_lists.create({"list_id": LIST_ID, "list_name": "Py list"}))
    call("subscriber_lists.get_all", lambda: client.subscriber_lists.get_all(limit=10))
    call("subscriber_lists.get", lambda: client.subscriber_lists.get(LIST_ID))
    call("subscriber_lists.add", lambda: client.subscriber_lists.add(LIST_ID, [USER, OTHER]))
    call("subscriber_lists.remove", lambda: client.subscriber_lists.remove(LIST_ID, [OTHER]))
    call("users.get_lists_subscribed_to", lambda: client.users.get_lists_subscribed_to(USER))
    broadcast = SubscriberListBroadcast({"list_id": LIST_ID, "template": "py-welcome", "notification_category": "account",
                                         "channels": ["inbox"], "data": {"name": "list"}}, idempotency_key=f"py-broadcast-{TAG}")
    call("subscriber_lists.broadcast", lambda: client.subscriber_lists.broadcast(broadcast))
    version = call("subscriber_lists.start_sync", lambda: client.subscriber_lists.start_sync(LIST_ID)) or {}
    version_id = version.get("version_id", "missing")
    call("subscriber_lists.get_version", lambda: client.subscriber_lists.get_version(LIST_ID, version_id))
    call("subscriber_lists.add_to_version", lambda: client.subscriber_lists.add_to_version(LIST_ID, version_id, [USER, OTHER]))
    call("subscriber_lists.remove_from_version", lambda: client.subscriber_lists.remove_from_version(LIST_ID, version_id, [OTHER]))
    call("subscriber_lists.finish_sync", lambda: client.subscriber_lists.finish_sync(LIST_ID, version_id))
    dropped = call("subscriber_lists.start_sync(to drop)", lambda: client.subscriber_lists.start_sync(LIST_ID)) or {}
    call("subscriber_lists.delete_version", lambda: client.subscriber_lists.delete_version(LIST_ID, dropped.get("version_id", "missing")))
    call("subscriber_lists.create(to delete)", lambda: client.subscriber_lists.create({"list_id": f"{LIST_ID}-gone"}))
    call("subscriber_lists.delete", lambda: client.subscriber_lists.delete(f"{LIST_ID}-gone"))

    # ---- workflows: the tenant's profile of the user is what its run reads
    request = WorkflowTriggerRequest({"workflow": "py-welcome", "recipients": [USER], "data": {"name": f"in tenant {TAG}"}},
                                     idempotency_key=f"py-trigger-{TAG}", tenant_id=TENANT)
    request.add_attachment(attachment.name, file_name="hello.txt")
    call("workflows.trigger", lambda: client.workflows.trigger(request))
    call("workflows.trigger(no tenant)", lambda: client.workflows.trigger(
        WorkflowTriggerRequest({"workflow": "py-welcome", "recipients": [USER], "data": {"name": f"workspace {TAG}"}})))
    bulk_trigger = client.workflows.bulk_trigger_instance()
    bulk_trigger.append(*[WorkflowTriggerRequest({"workflow": "py-welcome", "recipients": [f"py-bulk-wf-{i}-{TAG}"], "data": {"name": "bulk"}})
                          for i in range(3)])
    call("workflows.bulk_trigger_instance().trigger", bulk_trigger.trigger)

    # ---- the legacy dynamic workflow
    legacy = {"name": "py-legacy", "template": "py-welcome", "notification_category": "account",
              "users": [{"distinct_id": f"py-legacy-{TAG}"}], "data": {"name": f"legacy {TAG}"}}
    call("add_attachment", lambda: client.add_attachment(legacy, attachment.name) and None)
    call("trigger_workflow(dict)", lambda: client.trigger_workflow(legacy))
    call("trigger_workflow(Workflow)", lambda: client.trigger_workflow(Workflow(
        {**legacy, "users": [{"distinct_id": f"py-legacy-2-{TAG}"}]}, idempotency_key=f"py-legacy-{TAG}")))
    bulk_workflows = client.bulk_workflows.new_instance()
    bulk_workflows.append(Workflow({**legacy, "users": [{"distinct_id": f"py-legacy-3-{TAG}"}]}))
    call("bulk_workflows.new_instance().trigger", bulk_workflows.trigger)

    # ---- events
    call("track", lambda: client.track(USER, "py_tracked", {"via": "track"}))
    event = Event(USER, "py_tracked", {"via": "track_event"}, idempotency_key=f"py-event-{TAG}", tenant_id=TENANT)
    event.add_attachment(attachment.name)
    call("track_event", lambda: client.track_event(event))
    bulk_events = client.bulk_events.new_instance()
    bulk_events.append(Event(USER, "py_bulk_event", {"n": 1}), Event(OTHER, "py_bulk_event", {"n": 2}))
    call("bulk_events.new_instance().trigger", bulk_events.trigger)

    # ---- the older user API: an identity event
    subscriber = edit_everything(client.user.get_instance(f"py-saved-{TAG}"))
    call("user.get_instance().save", subscriber.save)
    call("user.get_instance(removals).save", remove_everything(client.user.get_instance(f"py-saved-{TAG}")).save)
    bulk_users = client.bulk_users.new_instance()
    for suffix in ("a", "b"):
        u = client.user.get_instance(f"py-bulk-user-{suffix}-{TAG}")
        u.add_email(f"bulk-{suffix}-{TAG}@example.com")
        bulk_users.append(u)
    call("bulk_users.new_instance().save", bulk_users.save)

    # ---- messages: the tenant trigger's inbox message, once stored
    for _ in range(150):
        if client.messages.list({"distinct_id": USER, "limit": 10}).get("results"):
            break
        time.sleep(0.2)
    listed = call("messages.list", lambda: client.messages.list({"distinct_id": USER, "limit": 10})) or {}
    message_id = (listed.get("results") or [{}])[0].get("message_id", "missing")
    call("messages.bulk_update", lambda: client.messages.bulk_update([{"message_id": message_id, "action": "seen"}]))

    # ---- merge and delete
    call("users.upsert(to merge)", lambda: client.users.upsert(OTHER, {"nickname": "Other", "$sms": ["+15555550122"]}))
    call("users.merge", lambda: client.users.merge(USER, OTHER))
    call("users.upsert(to delete)", lambda: client.users.upsert(f"py-gone-{TAG}", {"name": "Gone"}))
    call("users.delete", lambda: client.users.delete(f"py-gone-{TAG}"))
    call("users.bulk_delete", lambda: client.users.bulk_delete({"distinct_ids": [f"py-never-{TAG}"]}))

    os.unlink(attachment.name)


def one_operation(edit, key, value):
    edit.set(key, value)
    return edit


if __name__ == "__main__":
    main()
