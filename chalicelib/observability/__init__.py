"""What the functions tell an operator: structured log lines (`logs`) and CloudWatch metrics
(`metrics`), both with AWS Lambda Powertools."""
