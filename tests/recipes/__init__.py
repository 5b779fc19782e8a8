"""Every code block of the guide as a recipe: found with markdown-it-py, classified by its marker, then run,
validated or compiled against the installed libraries with tiny random-weight models (see README, "Recipes")."""
