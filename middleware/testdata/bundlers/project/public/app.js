public/app.js: copied by the bundler as it is, unhashed
