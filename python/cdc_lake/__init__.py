"""cdc-lake: land raw change-data-capture messages and build SCD2 history with dbt + Spark SQL."""

__version__ = "0.1.0"
