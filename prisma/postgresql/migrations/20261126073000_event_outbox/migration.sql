-- Events and their webhook deliveries in one statement (src/events/outbox.ts): a row
-- inserted into this view is an Event row, plus one WebhookDelivery per element of its
-- `deliveries` ([[delivery id, endpoint id], ...], or NULL), each carrying `payload`
-- (the event as its delivery sends it) and due at the event's time. The view reads no
-- table, so altering Event or WebhookDelivery in a later migration leaves it alone.
CREATE VIEW "EventOutbox" AS SELECT
    NULL::text AS "id", NULL::text AS "workspaceId", NULL::text AS "type", NULL::text AS "resource", NULL::text AS "recordId",
    NULL::text AS "actor", NULL::text AS "requestId", NULL::text AS "data", NULL::timestamp(3) AS "createdAt", NULL::text AS "payload", NULL::text AS "deliveries"
WHERE false;

CREATE FUNCTION "EventOutbox_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO "Event" ("id", "workspaceId", "type", "resource", "recordId", "actor", "requestId", "data", "createdAt")
    VALUES (NEW."id", NEW."workspaceId", NEW."type", NEW."resource", NEW."recordId", NEW."actor", NEW."requestId", NEW."data", NEW."createdAt");
    IF NEW."deliveries" IS NOT NULL THEN
        INSERT INTO "WebhookDelivery" ("id", "workspaceId", "endpointId", "eventId", "eventType", "payload", "nextAttemptAt", "createdAt")
        SELECT d ->> 0, NEW."workspaceId", d ->> 1, NEW."id", NEW."type", NEW."payload", NEW."createdAt", NEW."createdAt"
        FROM json_array_elements(NEW."deliveries"::json) AS d;
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER "EventOutbox_insert" INSTEAD OF INSERT ON "EventOutbox" FOR EACH ROW EXECUTE FUNCTION "EventOutbox_insert"();
