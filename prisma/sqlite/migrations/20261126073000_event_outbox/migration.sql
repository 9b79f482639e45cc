-- Events and their webhook deliveries in one statement (src/events/outbox.ts): a row
-- inserted into this view is an Event row, plus one WebhookDelivery per element of its
-- `deliveries` ([[delivery id, endpoint id], ...], or NULL), each carrying `payload`
-- (the event as its delivery sends it) and due at the event's time. The view reads no
-- table, so rebuilding Event or WebhookDelivery in a later migration leaves it alone.
CREATE VIEW "EventOutbox" AS SELECT
    NULL AS "id", NULL AS "workspaceId", NULL AS "type", NULL AS "resource", NULL AS "recordId",
    NULL AS "actor", NULL AS "requestId", NULL AS "data", NULL AS "createdAt", NULL AS "payload", NULL AS "deliveries"
WHERE 0;

CREATE TRIGGER "EventOutbox_insert" INSTEAD OF INSERT ON "EventOutbox" BEGIN
    INSERT INTO "Event" ("id", "workspaceId", "type", "resource", "recordId", "actor", "requestId", "data", "createdAt")
    VALUES (NEW."id", NEW."workspaceId", NEW."type", NEW."resource", NEW."recordId", NEW."actor", NEW."requestId", NEW."data", NEW."createdAt");
    INSERT INTO "WebhookDelivery" ("id", "workspaceId", "endpointId", "eventId", "eventType", "payload", "nextAttemptAt", "createdAt")
    SELECT json_extract(d."value", '$[0]'), NEW."workspaceId", json_extract(d."value", '$[1]'), NEW."id", NEW."type", NEW."payload", NEW."createdAt", NEW."createdAt"
    FROM json_each(NEW."deliveries") AS d;
END;
