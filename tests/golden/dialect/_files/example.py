import torch

# START training-step
    loss = model(**batch).loss
    loss.backward()
    optimizer.step()
# END training-step
