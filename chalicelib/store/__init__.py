"""PynamoDB models and the queries the domain needs: the only place that knows DynamoDB."""
