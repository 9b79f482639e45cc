-- Searchable copies keep LIKE's special characters as private-use characters (src/db/search.ts),
-- so that %, _ and \ in a search term match themselves on both databases.
UPDATE "Contact" SET "search" = replace(replace(replace("search", '%', char(57344)), '_', char(57345)), '\', char(57346));
UPDATE "Product" SET "search" = replace(replace(replace("search", '%', char(57344)), '_', char(57345)), '\', char(57346));
UPDATE "PaymentLink" SET "nameSearch" = replace(replace(replace("nameSearch", '%', char(57344)), '_', char(57345)), '\', char(57346));
UPDATE "PaymentTransaction" SET "referenceSearch" = replace(replace(replace("referenceSearch", '%', char(57344)), '_', char(57345)), '\', char(57346));
