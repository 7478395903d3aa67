package dev.herald.sdkcheck;

import java.util.Arrays;
import java.util.concurrent.Callable;

import org.json.JSONArray;
import org.json.JSONObject;

import suprsend.BulkEvents;
import suprsend.BulkResponse;
import suprsend.BulkSubscribers;
import suprsend.BulkWorkflows;
import suprsend.Event;
import suprsend.Subscriber;
import suprsend.SubscriberListBroadcast;
import suprsend.Suprsend;
import suprsend.Workflow;

/**
 * Calls every public method of the SuprSend Java SDK once against the base URL given,
 * and prints one line per call: {@code CALL <name> OK <result>} or
 * {@code CALL <name> FAIL <result or error>}. A call succeeds when the SDK reports
 * success: {@code success: true} for the trigger-style calls, a BulkResponse with no
 * failure, a parsed body (no exception) for the brand and list APIs.
 *
 * Arguments: base_url workspace_key workspace_secret run_tag. The run tag makes the
 * ids unique, so the calling test can find what each call created.
 */
public final class JavaSdkCheck {
  private JavaSdkCheck() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: JavaSdkCheck <base_url> <workspace_key> <workspace_secret> <run_tag>");
      System.exit(2);
    }
    String tag = args[3];
    Suprsend client = new Suprsend(args[1], args[2], args[0]);
    String listId = "java-list-" + tag;
    String brandId = "java-brand-" + tag;
    String inboxUser = "java-inbox-" + tag;

    // The legacy dynamic workflow, the Java SDK's only trigger: the template on the inbox.
    call("triggerWorkflow", () -> client.triggerWorkflow(new Workflow(
        dynamicWorkflow("java-welcome", inboxUser, tag), "java-trigger-" + tag)));
    call("triggerWorkflow(JSONObject)", () -> client.triggerWorkflow(dynamicWorkflow("java-welcome-json", "java-json-" + tag, tag)));
    call("bulkWorkflows", () -> {
      BulkWorkflows bulk = client.bulkWorkflows.newInstance();
      bulk.append(new Workflow(dynamicWorkflow("java-bulk", "java-bulk-1-" + tag, tag)), new Workflow(dynamicWorkflow("java-bulk", "java-bulk-2-" + tag, tag)));
      return bulk.trigger();
    });

    call("trackEvent", () -> client.trackEvent(new Event("java-user-" + tag, "java_signed_up", new JSONObject().put("plan", "pro"), "java-event-" + tag)));
    call("track", () -> client.track("java-user-" + tag, "java_tracked", new JSONObject().put("n", 1)));
    call("bulkEvents", () -> {
      BulkEvents bulk = client.bulkEvents.newInstance();
      bulk.append(new Event("java-a-" + tag, "java_bulk_event", new JSONObject()), new Event("java-b-" + tag, "java_bulk_event", new JSONObject()));
      return bulk.trigger();
    });

    call("user.save", () -> {
      Subscriber user = client.user.getInstance("java-user-" + tag);
      user.addEmail("java-" + tag + "@example.com");
      user.addSms("+15555550100");
      user.addWhatsapp("+15555550101");
      user.addAndroidpush("fcm-token-" + tag, "fcm");
      user.addIospush("apns-token-" + tag);
      user.addWebpush(new JSONObject().put("endpoint", "https://push.example.com/" + tag).put("keys", new JSONObject().put("p256dh", "p").put("auth", "a")));
      user.addSlack(new JSONObject().put("email", "slack-" + tag + "@example.com").put("access_token", "xoxb-java"));
      user.addSlackEmail("slack-" + tag + "@example.com");
      user.addSlackUserid("U" + tag.toUpperCase().replaceAll("[^A-Z0-9]", ""));
      user.append("plan", "pro");
      user.append(new JSONObject().put("tags", "java"));
      user.setPreferredLanguage("en");
      user.unset("legacy");
      user.remove("tags", "old");
      return user.save();
    });
    call("bulkUsers", () -> {
      BulkSubscribers bulk = client.bulkUsers.newInstance();
      Subscriber first = client.user.getInstance("java-bulk-user-1-" + tag);
      first.addEmail("bulk1-" + tag + "@example.com");
      Subscriber second = client.user.getInstance("java-bulk-user-2-" + tag);
      second.append("seats", "3");
      bulk.append(first, second);
      return bulk.save();
    });

    call("brands.upsert", () -> client.brands.upsert(brandId, new JSONObject().put("brand_name", "Java Brand").put("timezone", "Europe/Berlin")));
    call("brands.get", () -> client.brands.get(brandId));
    call("brands.list", () -> client.brands.list(10, 0));

    call("subscriberLists.create", () -> client.subscriberLists.create(new JSONObject().put("list_id", listId).put("list_name", "Java list")));
    call("subscriberLists.getAll", () -> client.subscriberLists.getAll(10, 0));
    call("subscriberLists.get", () -> client.subscriberLists.get(listId));
    call("subscriberLists.add", () -> client.subscriberLists.add(listId, Arrays.asList("java-user-" + tag, inboxUser)));
    call("subscriberLists.remove", () -> client.subscriberLists.remove(listId, Arrays.asList("java-user-" + tag)));
    call("subscriberLists.broadcast", () -> client.subscriberLists.broadcast(new SubscriberListBroadcast(
        new JSONObject().put("list_id", listId).put("template", "java-welcome").put("notification_category", "account").put("channels", new JSONArray().put("inbox")).put("data", new JSONObject().put("name", "list")),
        "java-broadcast-" + tag)));
  }

  private static JSONObject dynamicWorkflow(String name, String distinctId, String tag) {
    return new JSONObject()
        .put("name", name)
        .put("template", "java-welcome")
        .put("notification_category", "account")
        .put("users", new JSONArray().put(new JSONObject().put("distinct_id", distinctId).put("$channels", new JSONArray().put("inbox"))))
        .put("data", new JSONObject().put("name", "Java " + tag));
  }

  private static void call(String name, Callable<Object> work) {
    try {
      Object result = work.call();
      boolean ok;
      String text;
      if (result instanceof BulkResponse) {
        BulkResponse bulk = (BulkResponse) result;
        ok = "success".equals(bulk.status) && bulk.failure == 0 && bulk.total > 0;
        text = bulk.toString().replace('\n', ' ');
      } else {
        JSONObject json = (JSONObject) result;
        ok = json != null && (!json.has("success") || json.optBoolean("success"));
        text = String.valueOf(json);
      }
      System.out.println("CALL " + name + " " + (ok ? "OK" : "FAIL") + " " + text);
    } catch (Exception error) {
      System.out.println("CALL " + name + " FAIL " + error.getClass().getSimpleName() + ": " + String.valueOf(error.getMessage()).replace('\n', ' '));
    }
  }
}
