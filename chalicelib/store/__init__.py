"""PynamoDB models and the queries the domain needs: the only place that knows DynamoDB; and
the secrets the template keeps in Secrets Manager (`secrets.py`)."""
