-- Every REST answer is snake_case (API.md section 2), metadata the service writes included:
-- a checkout's transaction kept its quoted amounts as `installmentAmount` and each
-- installment's `dueDate`. The service's own key names, rewritten in the rows it wrote
-- (those with a checkout; a client's metadata is its own).
UPDATE "PaymentTransaction"
   SET "metadata" = REPLACE(REPLACE("metadata"::text, '"installmentAmount"', '"installment_amount"'), '"dueDate"', '"due_date"')::jsonb
 WHERE jsonb_typeof("metadata" #> '{checkout,amounts}') = 'object';
