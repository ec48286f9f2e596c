"""The count room screen (/count/): the count team's home."""
